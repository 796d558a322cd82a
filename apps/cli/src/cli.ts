import { VaultApiError } from '@vault/sdk';
import { feed, log } from './commands/activity';
import { download, files, upload } from './commands/files';
import { login, logout } from './commands/login';
import { records } from './commands/records';
import { exportIdentity, vaults } from './commands/vaults';
import type { Context } from './support/context';
import { EXIT, exitCodeOf, UsageError } from './support/exit-codes';
import { configDir } from './support/session';

export const USAGE = `vault: the Vault platform from the command line

  vault login --domain localhost:8443 --tenant T --client C --client-secret S --username U (--password P | --password-stdin) [--ca FILE | --insecure]
  vault logout
  vault vaults list [--shared | --owned]        vault vaults create <name> [--type individual|business|family]
  vault vaults get <vaultId>                    vault vaults delete <vaultId> [--if-match ETAG]
  vault records list <vaultId> [--name N]       vault records create <vaultId> <name> --type T --subtype S
  vault records get <vaultId> <recordId>        vault records delete <vaultId> <recordId> [--if-match ETAG]
  vault files <vaultId> <recordId>
  vault upload <vaultId> <recordId> <file> [--name N] [--file-type document|image|cloud] [--content-type T]
  vault download <vaultId> <recordId> <name> [--out PATH] [--age]   (--age: as a .age file, vault owner)
  vault export-identity <vaultId> [--out PATH]  the vault's age identity (vault owner), for age -d -i
  vault log <vaultId> [--limit N] [--entity E] [--event-type T]
  vault feed <vaultId> [--cursor C] [--follow]

Every command: --json (machine-readable output), --progress / --no-progress, --help.
Session: $VAULT_CONFIG_DIR (default ~/.config/vault), session.json with mode 0600.
Exit codes: 0 ok, 1 failure, 2 usage, 3 sign in again, 4 forbidden, 5 not found, 6 conflict,
7 refused input, 8 rate limited, 9 unavailable, 10 digest mismatch, 130 interrupted.`;

type Command = (ctx: Context, argv: string[]) => Promise<void>;

export interface Io {
  stdout: Context['stdout'];
  stderr: Context['stderr'];
  env: NodeJS.ProcessEnv;
  stdin: () => Promise<string>;
  signal: AbortSignal;
}

/** Runs one command line; answers the exit code (never throws). */
export async function run(argv: string[], io: Io): Promise<number> {
  const flags = new Set(['--json', '--progress', '--no-progress']);
  const json = argv.includes('--json');
  const rest = argv.filter((a) => !flags.has(a));
  const progress = !json && !argv.includes('--no-progress') && (argv.includes('--progress') || Boolean(io.stderr.isTTY));
  const ctx: Context = {
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    dir: configDir(io.env),
    json,
    progress,
    signal: io.signal,
  };
  const commands: Record<string, Command> = {
    login: (c, a) => login(c, a, io.stdin),
    logout,
    vaults,
    records,
    files,
    upload,
    download,
    'export-identity': exportIdentity,
    log,
    feed,
  };
  const [name, ...args] = rest;
  if (!name || name === 'help' || rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(USAGE + '\n');
    return name || rest.includes('--help') || rest.includes('-h') ? EXIT.ok : EXIT.usage;
  }
  try {
    const command = commands[name];
    if (!command) throw new UsageError(`unknown command ${name}`);
    await command(ctx, args);
    // A command that stops quietly on Ctrl-C (feed --follow) still says it was interrupted.
    return io.signal.aborted ? EXIT.interrupted : EXIT.ok;
  } catch (error) {
    if (io.signal.aborted) {
      io.stderr.write(
        json
          ? JSON.stringify({ error: { code: 'interrupted' } }) + '\n'
          : '\ninterrupted: run the same command again to continue\n',
      );
      return EXIT.interrupted;
    }
    report(ctx, error);
    return exitCodeOf(error);
  }
}

function report(ctx: Context, error: unknown): void {
  const e = error as Error;
  if (ctx.json) {
    const api =
      error instanceof VaultApiError
        ? { status: error.status, code: error.code, requestId: error.requestId, problem: error.problem }
        : {};
    ctx.stderr.write(JSON.stringify({ error: { name: e.name, message: e.message, ...api } }) + '\n');
    return;
  }
  ctx.stderr.write(`error: ${e.message}\n`);
  if (error instanceof UsageError) ctx.stderr.write('run vault --help for the commands\n');
  if (error instanceof VaultApiError && error.problem.errors) {
    for (const f of error.problem.errors) ctx.stderr.write(`  ${f.field}: ${f.message}\n`);
  }
}
