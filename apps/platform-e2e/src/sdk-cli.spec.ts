import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { domain, setupValue } from '../support/client';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { ALPHA_APP } from '../support/sdk';

const BIN = join(__dirname, '../../../dist/apps/cli/main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns the built `vault` bin with its config folder `dir`. */
function start(dir: string, args: string[]): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, VAULT_CONFIG_DIR: dir },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

const vault = (dir: string, ...args: string[]) => start(dir, args).done;
const json = (run: Run) => JSON.parse(run.stdout);
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Resolves once `check` holds (polled). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

/** The `vault` CLI (apps/cli), spawned as a user would, against the real platform. */
describe('vault CLI', () => {
  let dir: string;
  let work: string;
  let vaultId: string;
  let recordId: string;
  const loginArgs = (...extra: string[]) => [
    'login',
    '--tenant',
    ALPHA_APP.tenantId,
    '--client',
    ALPHA_APP.clientId,
    '--client-secret',
    ALPHA_APP.clientSecret,
    '--username',
    'cli@alpha.example',
    '--password-stdin',
    ...extra,
  ];

  beforeAll(() => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build it with npx nx run cli:build (nx test platform-e2e does)`);
    dir = mkdtempSync(join(tmpdir(), 'vault-cli-'));
    work = mkdtempSync(join(tmpdir(), 'vault-cli-files-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('refuses commands before login (3) and unknown commands (2)', async () => {
    const anonymous = await vault(dir, 'vaults', 'list');
    expect(anonymous.code).toBe(3);
    expect(anonymous.stderr).toMatch(/not signed in: run vault login/);
    expect((await vault(dir, 'vaults', 'frobnicate')).code).toBe(2);
  });

  it('logs in, keeping the tokens in a file only its owner can read', async () => {
    const cert = join(setupValue('E2E_WORK_DIR'), 'certs', 'gateway.crt');
    const login = start(dir, loginArgs('--domain', `${domain()}:${setupValue('E2E_GATEWAY_PORT')}`, '--ca', cert, '--json'));
    login.child.stdin?.end('cli-password-1\n');
    const run = await login.done;
    expect(run.code).toBe(0);
    expect(json(run)).toMatchObject({ username: 'cli@alpha.example', tenantId: 'alpha' });
    expect(statSync(join(dir, 'session.json')).mode & 0o777).toBe(0o600);
    const stored = readFileSync(join(dir, 'session.json'), 'utf8');
    expect(stored).not.toContain('cli-password-1');
    expect(JSON.parse(stored).tokens.refreshToken).toMatch(/^[\w-]{43}$/);
  });

  it('creates and lists vaults and records, as text and as JSON', async () => {
    const created = await vault(dir, 'vaults', 'create', 'CLI papers', '--json');
    expect(created.code).toBe(0);
    vaultId = json(created).id;
    expect((await vault(dir, 'vaults', 'list')).stdout).toContain(`${vaultId}  CLI papers  vault_owner`);
    const record = await vault(
      dir,
      'records',
      'create',
      vaultId,
      'Passport',
      '--type',
      'identityDocs',
      '--subtype',
      'passport',
      '--json',
    );
    recordId = json(record).id;
    expect(json(await vault(dir, 'records', 'list', vaultId, '--json')).map((r: { id: string }) => r.id)).toEqual([recordId]);
  });

  it('answers a missing vault with exit 5 and the request id', async () => {
    const missing = await vault(dir, 'vaults', 'get', '00000000-0000-4000-8000-000000000000', '--json');
    expect(missing.code).toBe(5);
    const error = JSON.parse(missing.stderr).error;
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('uploads with a progress bar and downloads with the digest checked', async () => {
    const file = join(work, 'scan.bin');
    writeFileSync(file, randomBytes(700 * 1024));
    const up = await vault(dir, 'upload', vaultId, recordId, file, '--chunk-size', String(256 * 1024), '--progress');
    expect(up.code).toBe(0);
    expect(up.stderr).toMatch(/upload scan\.bin \[#+-*\]\s+\d+%/);
    expect(up.stderr).toContain('100%');
    expect(up.stdout).toContain(`sha256 ${sha(file)}`);
    const down = await vault(dir, 'download', vaultId, recordId, 'scan.bin', '--out', join(work, 'copy.bin'), '--json');
    expect(down.code).toBe(0);
    expect(json(down)).toMatchObject({ sha256: sha(file), size: 700 * 1024 });
    expect(sha(join(work, 'copy.bin'))).toBe(sha(file));
  });

  it('prints the log and the feed, and follows the feed until Ctrl-C', async () => {
    let log: Run = { code: null, stdout: '[]', stderr: '' };
    for (let i = 0; i < 50 && !json(log).some((e: { entity: string }) => e.entity === 'File'); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      log = await vault(dir, 'log', vaultId, '--json');
    }
    expect(json(log).map((e: { entity: string; action: string }) => `${e.entity}:${e.action}`)).toContain('File:uploaded');
    const feed = await vault(dir, 'feed', vaultId, '--json');
    const lines = feed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.slice(0, 2).map((l) => l.event.type)).toEqual(['vault.created', 'record.created']);
    expect(lines.at(-1).nextCursor).toEqual(expect.any(String));

    const follow = start(dir, ['feed', vaultId, '--follow', '--json']);
    const firstLine = new Promise<void>((resolve) => follow.child.stdout?.on('data', () => resolve()));
    await firstLine;
    follow.child.kill('SIGINT');
    const ended = await follow.done;
    expect(ended.code).toBe(130);
    expect(JSON.parse(ended.stdout.split('\n')[0])).toMatchObject({
      cursor: expect.any(String),
      event: { type: 'vault.created' },
    });
  });

  it("exports the vault's identity and a file as .age, which the age CLI decrypts; both in the log", async () => {
    const identity = join(work, 'identity.txt');
    const exported = await vault(dir, 'export-identity', vaultId, '--out', identity, '--json');
    expect(exported.code).toBe(0);
    expect(json(exported)).toEqual({ path: identity });
    expect(statSync(identity).mode & 0o777).toBe(0o600);
    expect(readFileSync(identity, 'utf8')).toMatch(/^AGE-SECRET-KEY-1[0-9A-Z]+\n$/);
    const printed = await vault(dir, 'export-identity', vaultId);
    expect(printed.stdout.trim()).toBe(readFileSync(identity, 'utf8').trim());
    // never over an existing file
    expect((await vault(dir, 'export-identity', vaultId, '--out', identity)).code).not.toBe(0);

    const aged = join(work, 'scan.bin.age');
    const down = await vault(dir, 'download', vaultId, recordId, 'scan.bin', '--age', '--out', aged, '--json');
    expect(down.code).toBe(0);
    expect(json(down)).toMatchObject({ path: aged, size: statSync(aged).size });
    expect(readFileSync(aged).subarray(0, 22).toString()).toBe('age-encryption.org/v1\n');
    const opened = spawnSync('age', ['-d', '-i', identity, aged], { maxBuffer: 8 << 20 });
    expect(opened.status).toBe(0);
    expect(createHash('sha256').update(opened.stdout).digest('hex')).toBe(sha(join(work, 'scan.bin')));
    expect(existsSync(`${aged}.part`)).toBe(false);

    const missing = await vault(
      dir,
      'download',
      vaultId,
      recordId,
      'nothing.bin',
      '--age',
      '--out',
      join(work, 'x.age'),
      '--json',
    );
    expect(missing.code).toBe(5);

    let log: { entity: string; action: string }[] = [];
    for (let i = 0; i < 50 && log.length < 3; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      log = json(await vault(dir, 'log', vaultId, '--event-type', 'Export', '--json'));
    }
    expect(log.map((e) => `${e.entity}:${e.action}`).sort()).toEqual([
      'File:exported',
      'Vault:exported the encryption key of',
      'Vault:exported the encryption key of',
    ]);
  });

  describe('through a proxy that stalls', () => {
    let proxy: FaultProxy;
    let proxied: string;
    beforeAll(async () => {
      proxy = await startFaultProxy(Number(setupValue('E2E_GATEWAY_PORT')));
      proxied = mkdtempSync(join(tmpdir(), 'vault-cli-proxied-'));
      const login = start(proxied, loginArgs('--url-template', `http://{module}-api.${domain()}:${proxy.port}/api/v1`));
      login.child.stdin?.end('cli-password-1\n');
      expect((await login.done).code).toBe(0);
    });
    afterAll(async () => {
      await proxy.close();
      rmSync(proxied, { recursive: true, force: true });
    });

    it('resumes an upload interrupted with Ctrl-C from where the platform stands', async () => {
      const file = join(work, 'big.bin');
      writeFileSync(file, randomBytes(1024 * 1024));
      // The first chunk goes through; the second stalls until the user gives up.
      proxy.plan('PATCH', /\/uploads\/[0-9a-f-]+$/, [{ kind: 'forward' }, { kind: 'hold' }]);
      const args = ['upload', vaultId, recordId, file, '--chunk-size', String(256 * 1024)];
      const first = start(proxied, [...args, '--progress']);
      await until(() => proxy.seen.filter((p) => p.method === 'PATCH').length === 2);
      first.child.kill('SIGINT');
      const interrupted = await first.done;
      expect(interrupted.code).toBe(130);
      expect(interrupted.stderr).toMatch(/interrupted: run the same command again to continue/);

      const again = await vault(proxied, ...args, '--json');
      expect(again.code).toBe(0);
      expect(json(again)).toMatchObject({ resumed: true, sha256: sha(file), size: 1024 * 1024 });
      const patches = proxy.seen.filter((s) => s.method === 'PATCH');
      expect(patches.map((p) => p.headers['upload-offset'])).toEqual([
        '0',
        String(256 * 1024),
        String(256 * 1024),
        String(512 * 1024),
        String(768 * 1024),
      ]);
      expect(proxy.seen.filter((s) => s.method === 'POST' && s.path.endsWith('/uploads'))).toHaveLength(1);
      // every chunk carried its own digest (tus checksum extension)
      for (const p of patches) expect(p.headers['upload-checksum']).toMatch(/^sha256 [A-Za-z0-9+/]{43}=$/);
    });

    describe('a download broken mid-file, run again', () => {
      const size = 1024 * 1024;
      let original: string;
      const downloads = () => proxy.seen.filter((s) => s.method === 'GET' && s.path.endsWith('/record-files/resume.bin'));
      const partSize = (out: string) => statSync(`${out}.part`, { throwIfNoEntry: false })?.size ?? 0;

      beforeAll(async () => {
        original = join(work, 'resume.bin');
        writeFileSync(original, randomBytes(size));
        const up = await vault(dir, 'upload', vaultId, recordId, original, '--json');
        expect([up.code, up.stderr]).toEqual([0, '']);
      });

      it('goes on with Range from the partial file after the process was killed', async () => {
        const out = join(work, 'resume-killed.bin');
        const before = downloads().length;
        // 300 KiB arrive, then the answer stalls: the process is killed (no chance to clean up) mid-file.
        proxy.plan('GET', /\/record-files\/resume\.bin$/, [{ kind: 'truncate', bytes: 300 * 1024, then: 'stall' }]);
        const first = start(proxied, ['download', vaultId, recordId, 'resume.bin', '--out', out, '--progress']);
        await until(() => partSize(out) === 300 * 1024);
        first.child.kill('SIGKILL');
        expect((await first.done).code).toBeNull();
        expect(existsSync(out)).toBe(false);

        const again = await vault(proxied, 'download', vaultId, recordId, 'resume.bin', '--out', out, '--json');
        expect(again.code).toBe(0);
        expect(json(again)).toMatchObject({ resumed: true, sha256: sha(original), size });
        expect(readFileSync(out).equals(readFileSync(original))).toBe(true);
        const gets = downloads().slice(before);
        expect(gets.map((g) => g.headers.range)).toEqual([undefined, `bytes=${300 * 1024}-`]);
        // If-Range: the bytes kept are of the version the platform still has.
        expect(gets[1].headers['if-range']).toBe(gets[0].upstreamHeaders?.etag);
        expect(gets[1].upstreamStatus).toBe(206);
        expect(gets[1].upstreamHeaders?.['repr-digest']).toBe(
          `sha-256=:${createHash('sha256').update(readFileSync(original)).digest('base64')}:`,
        );
        expect(existsSync(`${out}.part`)).toBe(false);
      });

      it('keeps the bytes of every attempt when the proxy cuts the connection, and the next run finishes', async () => {
        const out = join(work, 'resume-cut.bin');
        const before = downloads().length;
        const cut = { kind: 'truncate', bytes: 200 * 1024, then: 'cut' } as const;
        // Every attempt of the run is cut 200 KiB in: the SDK resumes each from the bytes it has, then gives up.
        proxy.plan('GET', /\/record-files\/resume\.bin$/, [cut, cut, cut, cut]);
        const broken = await vault(proxied, 'download', vaultId, recordId, 'resume.bin', '--out', out, '--json');
        expect(broken.code).toBe(9);
        expect(JSON.parse(broken.stderr).error.message).toMatch(/interrupted 4 time/);
        // What arrived before each cut is kept (bytes still queued in the client when the connection broke are not).
        const kept = partSize(out);
        expect(kept).toBeGreaterThan(200 * 1024);
        expect(kept).toBeLessThanOrEqual(4 * 200 * 1024);

        const again = await vault(proxied, 'download', vaultId, recordId, 'resume.bin', '--out', out, '--json');
        expect(again.code).toBe(0);
        expect(json(again)).toMatchObject({ resumed: true, sha256: sha(original), size });
        expect(readFileSync(out).equals(readFileSync(original))).toBe(true);
        const ranges = downloads()
          .slice(before)
          .map((g) => g.headers.range);
        expect(ranges).toHaveLength(5);
        expect(ranges[0]).toBeUndefined();
        // Each attempt asked for the bytes after those on disk: in the run, and in the next one.
        const starts = ranges.slice(1).map((r) => Number(/^bytes=(\d+)-$/.exec(String(r))?.[1]));
        for (let i = 1; i < starts.length; i++) expect(starts[i]).toBeGreaterThan(starts[i - 1]);
        expect(starts[0]).toBeGreaterThan(0);
        expect(starts[3]).toBe(kept);
      });
    });
  });
});
