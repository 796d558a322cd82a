import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DigestMismatchError, PreconditionFailedError, RateLimitedError, VaultApiError, VaultNetworkError } from '@vault/sdk';
import { run, type Io } from './cli';
import { EXIT, exitCodeOf, NotSignedInError, UsageError } from './support/exit-codes';
import { formatBytes, ProgressBar, renderBar } from './support/progress';
import { configDir, readSession, removeSession, writeSession } from './support/session';

function io(env: NodeJS.ProcessEnv = {}, signal = new AbortController().signal) {
  const out: string[] = [];
  const err: string[] = [];
  const value: Io = {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t), isTTY: false },
    env,
    stdin: async () => '',
    signal,
  };
  return { io: value, out: () => out.join(''), err: () => err.join('') };
}

const problem = (status: number, code: string) => new VaultApiError({ status, code }, new Headers());

describe('exit codes', () => {
  it.each([
    ['UsageError', new UsageError('x'), EXIT.usage],
    ['NotSignedInError', new NotSignedInError('x'), EXIT.auth],
    ['401 unauthorized', problem(401, 'unauthorized'), EXIT.auth],
    ['400 invalid_grant', problem(400, 'invalid_grant'), EXIT.auth],
    ['403 forbidden', problem(403, 'forbidden'), EXIT.forbidden],
    ['404 not_found', problem(404, 'not_found'), EXIT.notFound],
    ['409 email_username_taken', problem(409, 'email_username_taken'), EXIT.conflict],
    [
      '412 PreconditionFailedError',
      new PreconditionFailedError({ status: 412, code: 'precondition_failed' }, new Headers()),
      EXIT.conflict,
    ],
    ['400 validation_failed', problem(400, 'validation_failed'), EXIT.invalid],
    ['429 RateLimitedError', new RateLimitedError({ status: 429 }, new Headers()), EXIT.rateLimited],
    ['503 service_unavailable', problem(503, 'service_unavailable'), EXIT.unavailable],
    ['VaultNetworkError', new VaultNetworkError('gone'), EXIT.unavailable],
    ['DigestMismatchError', new DigestMismatchError('a', 'b'), EXIT.digest],
    ['Error', new Error('bug'), EXIT.failure],
  ])('%s → %d', (_label, error, code) => {
    expect(exitCodeOf(error)).toBe(code);
  });
});

describe('run', () => {
  it('prints the usage for --help (0) and without a command (2)', async () => {
    const help = io();
    expect(await run(['--help'], help.io)).toBe(EXIT.ok);
    expect(help.out()).toContain('vault upload <vaultId> <recordId> <file>');
    expect(await run([], io().io)).toBe(EXIT.usage);
  });

  it('refuses an unknown command or option with exit 2 and says why', async () => {
    const unknown = io();
    expect(await run(['frobnicate'], unknown.io)).toBe(EXIT.usage);
    expect(unknown.err()).toContain('unknown command frobnicate');
    const dir = mkdtempSync(join(tmpdir(), 'cli-spec-'));
    const badOption = io({ VAULT_CONFIG_DIR: dir });
    expect(await run(['upload', 'v', 'r', 'f', '--colour', 'red'], badOption.io)).toBe(EXIT.usage);
    expect(badOption.err()).toMatch(/colour/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers errors as JSON on stderr with --json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-spec-'));
    const anonymous = io({ VAULT_CONFIG_DIR: dir });
    expect(await run(['vaults', 'list', '--json'], anonymous.io)).toBe(EXIT.auth);
    expect(JSON.parse(anonymous.err()).error.message).toMatch(/not signed in/);
    expect(anonymous.out()).toBe('');
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks for the login fields it lacks', async () => {
    const missing = io({ VAULT_CONFIG_DIR: '/nonexistent' });
    expect(await run(['login', '--domain', 'localhost:8443'], missing.io)).toBe(EXIT.usage);
    expect(missing.err()).toMatch(/--password \(or VAULT_PASSWORD\) is required/);
  });
});

describe('session', () => {
  it('lives in VAULT_CONFIG_DIR, else XDG_CONFIG_HOME/vault', () => {
    expect(configDir({ VAULT_CONFIG_DIR: '/a' })).toBe('/a');
    expect(configDir({ XDG_CONFIG_HOME: '/x' })).toBe('/x/vault');
  });

  it('is written with mode 0600 in a 0700 folder, whatever the umask', () => {
    const root = mkdtempSync(join(tmpdir(), 'cli-spec-'));
    const dir = join(root, 'vault');
    const previous = process.umask(0o000);
    try {
      const session = {
        urlTemplate: 'https://{module}-api.localhost:8443/api/v1',
        tenantId: 't',
        clientId: 'c',
        clientSecret: 's',
        username: 'u',
        tokens: { accessToken: 'a', refreshToken: 'r', expiresAt: 1 },
      };
      writeSession(dir, session);
      expect(statSync(join(dir, 'session.json')).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(readSession(dir)).toEqual(session);
      expect(removeSession(dir)).toBe(true);
      expect(readSession(dir)).toBeUndefined();
    } finally {
      process.umask(previous);
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('progress', () => {
  it('draws a bar with the share done and the sizes', () => {
    expect(renderBar('up', 512, 1024, 10)).toBe('up [#####-----]  50%  512 B / 1.0 KiB');
    expect(renderBar('up', 3 * 1024 * 1024, undefined, 10)).toBe('up 3.0 MiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.0 GiB');
  });

  it('redraws one line on a terminal, writes a line per tenth elsewhere', () => {
    const tty: string[] = [];
    const bar = new ProgressBar('x', { write: (t: string) => tty.push(t), isTTY: true }, 4);
    bar.update(1, 4);
    bar.update(2, 4);
    bar.finish();
    expect(tty).toEqual(['\rx [#---]  25%  1 B / 4 B', '\rx [##--]  50%  2 B / 4 B', '\n']);
    const log: string[] = [];
    const plain = new ProgressBar('x', { write: (t: string) => log.push(t), isTTY: false }, 4);
    for (let i = 0; i <= 100; i++) plain.update(i, 100);
    expect(log).toHaveLength(11);
  });
});
