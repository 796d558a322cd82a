'use strict';
/**
 * Starts and stops the four apps of the platform as child processes from their
 * build output. Shared by `npm start` (scripts/start.mjs) and the platform e2e suite.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { Client } = require('pg');

const ROOT = path.resolve(__dirname, '..');
const SERVICES = ['developer-service', 'user-service', 'records-service'];
const APPS = [...SERVICES, 'gateway'];
const DATABASES = {
  'developer-service': 'vault_developer',
  'user-service': 'vault_user',
  'records-service': 'vault_records',
};

/** Resolves when a TCP connection to host:port succeeds, false after timeoutMs. */
function canConnect(host, port, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** True when nothing listens on `port` (any address) at this moment. */
function portFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, () => srv.close(() => resolve(true)));
  });
}

/**
 * The ports picked for children: from 10000 up to the kernel's ephemeral range
 * (ip_local_port_range, 32768 unless set otherwise), or any unprivileged port when that range
 * starts too low to leave room below it.
 */
const CHILD_PORTS = (() => {
  let low = 32768;
  try {
    low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // not Linux: the default range
  }
  return low > 11000 ? { bottom: 10000, top: low - 1 } : { bottom: 1024, top: 65535 };
})();

/**
 * A free port for a child to listen on, below the kernel's ephemeral range. A port from
 * `listen(0)` is an ephemeral one: between this check and the child's listen, any outgoing
 * connection of the machine (the tests' own PostgreSQL and NATS clients) may take it, and the
 * child then fails with EADDRINUSE. Below the range only another listener can. The testing
 * library's `freePort` (libs/platform/src/testing) is this one.
 */
async function freePort() {
  const { bottom, top } = CHILD_PORTS;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom + 1));
    if (await portFree(port)) return port;
  }
  throw new Error('no free port found');
}

/** True when a PostgreSQL server answers at `serverUrl`. */
async function postgresAnswers(serverUrl) {
  const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Creates each database that does not exist yet on the server. */
async function ensureDatabases(serverUrl, names) {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (const name of names) {
      const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount === 0) await client.query(`CREATE DATABASE "${name}"`);
    }
  } finally {
    await client.end();
  }
}

async function dropDatabases(serverUrl, names) {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (const name of names) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

function databaseUrl(serverUrl, name) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** One GET; resolves to the status code, or 0 when nothing answers (self-signed TLS accepted). */
function statusOf(url) {
  const lib = url.startsWith('https:') ? require('node:https') : require('node:http');
  return new Promise((resolve) => {
    const req = lib.get(url, { rejectUnauthorized: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Polls `url` until it answers 200, failing after timeoutMs or when the process died. */
async function waitForReady(url, timeoutMs, isAlive) {
  const started = Date.now();
  for (;;) {
    if (isAlive && !isAlive()) throw new Error(`process for ${url} exited before it was ready`);
    if ((await statusOf(url)) === 200) return;
    if (Date.now() - started > timeoutMs) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Launches the built apps (dist/apps/<app>/main.js) with the given ports and
 * backends, waits until each is ready, and returns their addresses and a stop().
 *
 * opts: { postgresUrl, natsUrl, databases?, ports?, metricsPorts?: { [app]: number }, env?, nodeArgs?: { [app]: string[] },
 *   mains?: { [app]: string } (another main.js, started from its own folder), onOutput?(app, line) }
 */
async function launchPlatform(opts) {
  const ports = {
    'developer-service': opts.ports?.['developer-service'] ?? (await freePort()),
    'user-service': opts.ports?.['user-service'] ?? (await freePort()),
    'records-service': opts.ports?.['records-service'] ?? (await freePort()),
    https: opts.ports?.https ?? (await freePort()),
    http: opts.ports?.http ?? (await freePort()),
  };
  // Each process serves its own /metrics on a port of its own (one METRICS_PORT for all would clash).
  const metricsPorts = {};
  for (const app of APPS) metricsPorts[app] = opts.metricsPorts?.[app] ?? (await freePort());
  const databases = { ...DATABASES, ...(opts.databases ?? {}) };
  const jwks = `http://127.0.0.1:${ports['developer-service']}/api/v1/.well-known/jwks.json`;
  const domain = opts.env?.GATEWAY_DOMAIN ?? 'localhost';
  const issuer = `https://developer-api.${domain}:${ports.https}/api/v1`;
  const common = {
    NODE_ENV: 'development',
    NATS_URL: opts.natsUrl,
    AUTH_JWKS_URL: jwks,
    AUTH_ISSUER: issuer,
    TOKEN_ISSUER: issuer,
    GATEWAY_DOMAIN: domain,
    ...(opts.env ?? {}),
  };
  const perApp = {
    'developer-service': { PORT: ports['developer-service'] },
    'user-service': { PORT: ports['user-service'] },
    'records-service': { PORT: ports['records-service'] },
    gateway: {
      HTTPS_PORT: ports.https,
      HTTP_PORT: ports.http,
      DEVELOPER_SERVICE_URL: `http://127.0.0.1:${ports['developer-service']}`,
      USER_SERVICE_URL: `http://127.0.0.1:${ports['user-service']}`,
      RECORDS_SERVICE_URL: `http://127.0.0.1:${ports['records-service']}`,
      // A namespaced run (the e2e suite) keeps its rate-limit counters apart on a shared NATS.
      ...(common.EVENTS_NAMESPACE ? { RATE_LIMIT_BUCKET: `${common.EVENTS_NAMESPACE}_gateway_rate_limits` } : {}),
    },
  };
  const children = new Map();
  const stop = async () => {
    await Promise.all(
      [...children.values()].reverse().map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), 10000);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  };
  const start = async (app) => {
    const env = { ...process.env, ...common, ...perApp[app], METRICS_PORT: String(metricsPorts[app]) };
    if (databases[app]) env.DATABASE_URL = databaseUrl(opts.postgresUrl, databases[app]);
    const main = opts.mains?.[app] ?? path.join(ROOT, 'dist/apps', app, 'main.js');
    const child = spawn(process.execPath, [...(opts.nodeArgs?.[app] ?? []), main], {
      cwd: opts.mains?.[app] ? path.dirname(main) : ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.set(app, child);
    const forward = (chunk) => {
      for (const line of chunk.toString().split('\n')) if (line.trim()) opts.onOutput?.(app, line);
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    const readyUrl =
      app === 'gateway' ? `https://127.0.0.1:${ports.https}/health/ready` : `http://127.0.0.1:${perApp[app].PORT}/health/ready`;
    await waitForReady(readyUrl, opts.readyTimeoutMs ?? 60000, () => child.exitCode === null);
  };
  try {
    await ensureDatabases(opts.postgresUrl, Object.values(databases));
    await start('developer-service');
    await Promise.all([start('user-service'), start('records-service')]);
    await start('gateway');
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    ports,
    metricsPorts,
    metricsUrls: Object.fromEntries(APPS.map((app) => [app, `http://127.0.0.1:${metricsPorts[app]}/metrics`])),
    domain,
    issuer,
    databases,
    gatewayUrl: `https://127.0.0.1:${ports.https}`,
    plainHttpUrl: `http://127.0.0.1:${ports.http}`,
    children,
    stop,
  };
}

module.exports = {
  ROOT,
  APPS,
  canConnect,
  freePort,
  postgresAnswers,
  ensureDatabases,
  dropDatabases,
  databaseUrl,
  waitForReady,
  launchPlatform,
};
