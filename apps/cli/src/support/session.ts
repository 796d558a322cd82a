import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { TokenSet } from '@vault/sdk';

/** What `vault login` keeps: where the platform is, the application, and the tokens (never the password). */
export interface Session {
  /** Base address of each module, `{module}` standing for developer, user or records. */
  urlTemplate: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  username: string;
  /** A CA file to trust (a local gateway's certificate). */
  caFile?: string;
  insecure?: boolean;
  tokens: TokenSet;
}

/** The config folder: `VAULT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/vault`, else `~/.config/vault`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env['VAULT_CONFIG_DIR'] ?? join(env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), 'vault');
}

export const sessionFile = (dir: string) => join(dir, 'session.json');
/** Where interrupted uploads are remembered (tus upload URLs by file fingerprint). */
export const uploadsFile = (dir: string) => join(dir, 'uploads.json');

export function readSession(dir: string): Session | undefined {
  try {
    return JSON.parse(readFileSync(sessionFile(dir), 'utf8')) as Session;
  } catch {
    return undefined;
  }
}

/** Writes the session readable by its owner only (folder 0700, file 0600), whatever the umask. */
export function writeSession(dir: string, session: Session): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = sessionFile(dir);
  writeFileSync(file, JSON.stringify(session, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function removeSession(dir: string): boolean {
  const file = sessionFile(dir);
  const existed = readSession(dir) !== undefined;
  rmSync(file, { force: true });
  return existed;
}
