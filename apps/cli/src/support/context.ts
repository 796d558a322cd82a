import { readFileSync } from 'node:fs';
import { createVaultClient, type VaultClient } from '@vault/sdk';
import { NotSignedInError } from './exit-codes';
import { ProgressBar, type ProgressSink } from './progress';
import { readSession, writeSession, type Session } from './session';

/** What a command reads and writes: streams, environment, flags common to every command. */
export interface Context {
  stdout: { write(text: string): unknown };
  stderr: ProgressSink;
  env: NodeJS.ProcessEnv;
  /** The config folder (session, interrupted uploads). */
  dir: string;
  /** `--json`: machine-readable output on stdout, errors as JSON on stderr. */
  json: boolean;
  /** Progress bars on stderr (`--progress`, or stderr is a terminal; never with `--json`). */
  progress: boolean;
  /** Aborted by Ctrl-C. */
  signal: AbortSignal;
}

/** Prints the result: `human` lines, or `data` as JSON with `--json`. */
export function print(ctx: Context, human: string | string[], data: unknown): void {
  if (ctx.json) ctx.stdout.write(JSON.stringify(data) + '\n');
  else ctx.stdout.write((Array.isArray(human) ? human : [human]).join('\n') + '\n');
}

/** A progress bar when the context shows progress. */
export function progressBar(ctx: Context, label: string): ProgressBar | undefined {
  return ctx.progress ? new ProgressBar(label, ctx.stderr) : undefined;
}

/** TLS settings of a session: its CA file, or no verification when it was logged in with `--insecure`. */
export function tlsOf(s: Pick<Session, 'caFile' | 'insecure'>) {
  if (s.insecure) return { rejectUnauthorized: false };
  return s.caFile ? { ca: readFileSync(s.caFile) } : {};
}

export function baseUrlsOf(template: string) {
  const of = (m: string) => template.replace('{module}', m);
  return { developer: of('developer'), user: of('user'), records: of('records') };
}

/** The SDK client of the stored session; renewed tokens are written back at once. */
export function clientFor(ctx: Context): VaultClient {
  const session = readSession(ctx.dir);
  if (!session) throw new NotSignedInError(`not signed in: run vault login (config folder ${ctx.dir})`);
  return createVaultClient({
    baseUrls: baseUrlsOf(session.urlTemplate),
    tls: tlsOf(session),
    userAgent: 'vault-cli',
    auth: {
      tenantId: session.tenantId,
      clientId: session.clientId,
      clientSecret: session.clientSecret,
      tokens: session.tokens,
      onTokens: (tokens) => writeSession(ctx.dir, { ...session, tokens }),
    },
  });
}
