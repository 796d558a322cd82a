#!/usr/bin/env node
/**
 * `npm start`: builds the four apps, makes sure PostgreSQL and NATS are there
 * (starting an embedded PostgreSQL or a local nats-server when none answers),
 * runs gateway + developer, user and records services, and prints how to call them.
 *
 * DATABASE_URL  PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
 *               each service gets its own database on it (vault_developer, vault_user, vault_records).
 * NATS_URL      NATS with JetStream (default nats://127.0.0.1:4222).
 * Everything else is passed through to the apps (see README).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { address, findNatsServer, NATS_SERVER_INSTALL, startEmbeddedPostgres, startNatsServer } from './local-services.mjs';

const require = createRequire(import.meta.url);
const platform = require('./platform.cjs');
const { ROOT, APPS } = platform;
const DATA = path.join(ROOT, '.data');

const log = (msg) => console.log(`\x1b[36m[start]\x1b[0m ${msg}`);
const cleanups = [];

async function ensurePostgres() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  if (await platform.postgresAnswers(serverUrl)) {
    log(`PostgreSQL: ${new URL(serverUrl).host}`);
    return serverUrl;
  }
  const port = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
  log(`no PostgreSQL answers at ${new URL(serverUrl).host}; starting an embedded one on port ${port} (data in .data/postgres)`);
  const pg = await startEmbeddedPostgres({ dir: path.join(DATA, 'postgres'), port });
  cleanups.push(() => pg.stop());
  return pg.url;
}

async function ensureNats() {
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const { host, port } = address(natsUrl, 4222);
  if (await platform.canConnect(host, port)) {
    log(`NATS: ${host}:${port}`);
    return natsUrl;
  }
  const bin = findNatsServer();
  if (!bin) {
    console.error(
      `No NATS server answers at ${host}:${port} and no nats-server is installed.\n` +
        `To run one here, ${NATS_SERVER_INSTALL};\n` +
        'or point NATS_URL at a NATS server with JetStream enabled, then run npm start again.',
    );
    process.exit(1);
  }
  log(`no NATS answers at ${host}:${port}; starting ${bin} with JetStream (store in .data/nats)`);
  const nats = await startNatsServer({ bin, port, dir: path.join(DATA, 'nats') });
  cleanups.push(() => nats.stop());
  return nats.url;
}

function build() {
  if (process.env.SKIP_BUILD === 'true') return;
  log('building apps…');
  const res = spawnSync('npx', ['nx', 'run-many', '-t', 'build', `--projects=${APPS.join(',')}`, '--outputStyle=static'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, NX_NO_CLOUD: 'true' },
  });
  if (res.status !== 0) process.exit(res.status ?? 1);
}

const COLORS = { gateway: 35, 'developer-service': 33, 'user-service': 32, 'records-service': 34 };

async function main() {
  build();
  const postgresUrl = await ensurePostgres();
  const natsUrl = await ensureNats();
  const https = Number(process.env.HTTPS_PORT ?? 8443);
  const app = await platform.launchPlatform({
    postgresUrl,
    natsUrl,
    ports: {
      'developer-service': Number(process.env.DEVELOPER_PORT ?? 3001),
      'user-service': Number(process.env.USER_PORT ?? 3002),
      'records-service': Number(process.env.RECORDS_PORT ?? 3003),
      https,
      http: Number(process.env.HTTP_PORT ?? 8080),
    },
    // METRICS_PORT is per process here: 9464 (developer), 9465 (user), 9466 (records), 9467 (gateway) from METRICS_PORT_BASE.
    metricsPorts: Object.fromEntries(APPS.map((name, i) => [name, Number(process.env.METRICS_PORT_BASE ?? 9464) + i])),
    onOutput: (name, line) => console.log(`\x1b[${COLORS[name]}m[${name}]\x1b[0m ${line}`),
  });
  cleanups.unshift(() => app.stop());
  const d = app.domain;
  console.log(`
Vault platform is running.

  Developer API  https://developer-api.${d}:${https}/api/v1
  User API       https://user-api.${d}:${https}/api/v1
  Records API    https://records-api.${d}:${https}/api/v1
  OpenAPI        https://<module>-api.${d}:${https}/api/v1/docs
  Plain HTTP     http://127.0.0.1:${app.ports.http}  (refused with an error, by design)

Metrics (Prometheus text, one port per process; not reachable through the gateway)
${APPS.map((name) => `  ${name.padEnd(18)} ${app.metricsUrls[name]}`).join('\n')}

Demo tenant (unless VAULT_BOOTSTRAP_FILE is set): tenant demo, client demo-app,
secret demo-secret, user demo@vault.local / demo-password

  curl -sk https://developer-api.${d}:${https}/api/v1/tenant/tenant-id/demo/applications/client-id/demo-app/auth \\
       --resolve developer-api.${d}:${https}:127.0.0.1 -H 'content-type: application/json' \\
       -d '{"clientSecret":"demo-secret","username":"demo@vault.local","password":"demo-password"}'

Press Ctrl+C to stop.
`);
}

let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  for (const fn of cleanups) await Promise.resolve(fn()).catch((e) => console.error(e));
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));
process.on('SIGHUP', () => shutdown(0));

main().catch(async (err) => {
  console.error(err instanceof Error ? err.message : err);
  await shutdown(1);
});
