#!/usr/bin/env node
/**
 * Activity log benchmark: the records-service outbox relay and activity-log
 * writer run as their own processes (`node main.js activity-log-relay` and
 * `node main.js activity-log-writer`, from the webpack build) against a
 * throw-away database and a private nats-server (free port, temporary
 * JetStream store). Operations are committed as outbox rows at a steady rate.
 *
 * 1. lag: for BENCH_LAG_SECONDS at BENCH_RATE operations per second, the time
 *    from each operation's COMMIT returning to its log entry becoming visible
 *    (a NOTIFY fired by the entry's insert arrives when the writer's
 *    transaction commits); p50, p90, p99, max.
 * 2. drain: the writer is stopped (SIGTERM) for BENCH_OUTAGE_SECONDS while
 *    operations go on at the same rate; then a writer is started again and the
 *    time until every operation committed before its start is logged gives the
 *    drain rate (backlog / time), counted from the process start and from its
 *    first entry.
 *
 * Prints the result and writes .data/bench/log.json.
 * Variables: BENCH_RATE (200), BENCH_LAG_SECONDS (30), BENCH_OUTAGE_SECONDS (60),
 * BENCH_SKIP_BUILD=1, DATABASE_ADMIN_URL (postgres://postgres@127.0.0.1:5432/postgres),
 * NATS_SERVER_BIN (/usr/sbin/nats-server).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const { Client, Pool } = require('pg');
const { ROOT, freePort, canConnect } = require('../../scripts/platform.cjs');

const RATE = Number(process.env.BENCH_RATE ?? 200);
const LAG_SECONDS = Number(process.env.BENCH_LAG_SECONDS ?? 30);
const OUTAGE_SECONDS = Number(process.env.BENCH_OUTAGE_SECONDS ?? 60);
const ADMIN_URL = process.env.DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
const MAIN = path.join(ROOT, 'dist/apps/records-service/main.js');

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];

function startChild(name, cmd, args, env, quiet = false) {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', quiet ? 'ignore' : 'pipe'] });
  child.stderr?.on('data', (d) => process.stderr.write(`[${name}] ${d}`));
  child.exited = new Promise((r) => child.once('exit', r));
  children.push(child);
  return child;
}

async function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  await child.exited;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (x) => Math.round(x * 10) / 10;

async function main() {
  build();
  const db = await createDatabase();
  const nats = await startNats();
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: db.url,
    NATS_URL: `nats://127.0.0.1:${nats.port}`,
    EVENTS_NAMESPACE: `bench_${randomBytes(3).toString('hex')}`,
    DB_MIGRATE_ON_START: 'false',
  };
  migrate(env);
  const probe = await startVisibilityProbe(db.url);
  const load = workload(probe);

  const relay = startChild('relay', 'node', [MAIN, 'activity-log-relay'], env);
  let writer = startChild('writer', 'node', [MAIN, 'activity-log-writer'], env);
  await warmUp(load, probe);
  const lags = await measureLag(load, probe);
  const drain = await measureDrain(load, probe, writer, env);
  writer = drain.writer;

  await writeReport(probe, lags, drain);
  await teardown({ probe, processes: [writer, relay], nats, db });
}

function build() {
  if (process.env.BENCH_SKIP_BUILD === '1') return;
  const b = spawnSync('npx', ['nx', 'build', 'records-service'], { cwd: ROOT, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('build failed');
}

/** A throw-away database on the server of DATABASE_ADMIN_URL. */
async function createDatabase() {
  const name = `bench_log_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { admin, name, url: url.toString() };
}

/** A private nats-server with JetStream on a free port and a temporary store. */
async function startNats() {
  const port = await freePort();
  const store = mkdtempSync(path.join(tmpdir(), 'bench-nats-'));
  const child = startChild('nats', NATS_BIN, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {}, true);
  for (let i = 0; i < 100 && !(await canConnect('127.0.0.1', port)); i++) await sleep(50);
  return { child, port, store };
}

function migrate(env) {
  const migrate = spawnSync('node', [MAIN, 'migrate'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (migrate.status !== 0) throw new Error(`migrate failed: ${migrate.stderr}${migrate.stdout}`);
}

/** Visibility probe: a NOTIFY per log entry, delivered when the writer's transaction commits. */
async function startVisibilityProbe(databaseUrl) {
  const pool = new Pool({ connectionString: databaseUrl, max: 8 });
  await pool.query(`
    CREATE FUNCTION bench_logged() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('bench_logged', NEW.event_id::text); RETURN NULL; END $$`);
  await pool.query(
    `CREATE TRIGGER bench_logged AFTER INSERT ON activity_log_entries FOR EACH ROW EXECUTE FUNCTION bench_logged()`,
  );
  const committedAt = new Map();
  const visibleAt = new Map();
  const listener = new Client({ connectionString: databaseUrl });
  await listener.connect();
  listener.on('notification', (n) => {
    if (!visibleAt.has(n.payload)) visibleAt.set(n.payload, now());
  });
  await listener.query('LISTEN bench_logged');
  return { pool, listener, committedAt, visibleAt };
}

/** Operations committed as outbox rows, one at a time or at RATE per second. */
function workload({ pool, committedAt }) {
  const vault = { id: randomUUID(), name: 'Bench' };
  let seq = 0;
  async function operation() {
    const id = randomUUID();
    const occurredAt = new Date().toISOString();
    const payload = {
      tenantId: 'bench',
      actor: { openId: 'vault|bench', username: 'bench' },
      vault,
      occurredAt,
      record: { id: randomUUID(), name: `Record ${seq++}` },
      recordTypeName: 'identityDocs',
    };
    await pool.query(
      `INSERT INTO outbox_events (id, subject, tenant_id, vault_id, payload, occurred_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, 'vault.record.created.v1', 'bench', vault.id, payload, occurredAt],
    );
    committedAt.set(id, now());
    return id;
  }

  /** Commits operations at RATE per second for `seconds`; returns their ids. */
  async function steady(seconds) {
    const ids = [];
    const inflight = new Set();
    const start = now();
    let sent = 0;
    while (now() - start < seconds * 1000) {
      const due = Math.floor(((now() - start) / 1000) * RATE);
      while (sent < due) {
        sent++;
        const p = operation().then((id) => {
          ids.push(id);
          inflight.delete(p);
        });
        inflight.add(p);
      }
      await sleep(2);
    }
    await Promise.all(inflight);
    return ids;
  }

  return { operation, steady };
}

async function until(cond, timeoutMs, what) {
  const deadline = now() + timeoutMs;
  while (now() < deadline) {
    if (cond()) return;
    await sleep(5);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Both processes up and the path exercised. */
async function warmUp({ operation, steady }, { visibleAt }) {
  const warm = [];
  for (let i = 0; i < 20; i++) warm.push(await operation());
  await until(() => warm.every((id) => visibleAt.has(id)), 60_000, 'warm-up entries');
  await steady(3);
  await sleep(500);
}

/** Phase 1: lag at a steady rate; the sorted lags in ms. */
async function measureLag({ steady }, { committedAt, visibleAt }) {
  console.log(`lag: ${RATE} operations/s for ${LAG_SECONDS} s`);
  const lagIds = await steady(LAG_SECONDS);
  await until(() => lagIds.every((id) => visibleAt.has(id)), 30_000, 'lag entries');
  return lagIds.map((id) => visibleAt.get(id) - committedAt.get(id)).sort((a, b) => a - b);
}

/** Phase 2: writer outage, then drain; returns the new writer with the timings. */
async function measureDrain({ steady }, { committedAt, visibleAt }, writer, env) {
  console.log(`drain: writer stopped for ${OUTAGE_SECONDS} s while ${RATE} operations/s go on`);
  await stopChild(writer, 'SIGTERM');
  const outageIds = await steady(OUTAGE_SECONDS);
  const backlogIds = [...committedAt.keys()].filter((id) => !visibleAt.has(id));
  const restartAt = now();
  const restarted = startChild('writer', 'node', [MAIN, 'activity-log-writer'], env);
  const during = steady(15);
  await until(() => backlogIds.every((id) => visibleAt.has(id)), 120_000, 'backlog drain');
  const drainedAt = Math.max(...backlogIds.map((id) => visibleAt.get(id)));
  const firstAt = Math.min(...backlogIds.map((id) => visibleAt.get(id)));
  await during;
  return { writer: restarted, outageIds, backlogIds, restartAt, drainedAt, firstAt };
}

/** Prints the result and writes .data/bench/log.json. */
async function writeReport({ pool }, lags, { outageIds, backlogIds, restartAt, drainedAt, firstAt }) {
  const result = {
    when: new Date().toISOString(),
    machine: {
      cpus: `${cpus().length} x ${cpus()[0]?.model}`,
      memoryGiB: round(totalmem() / 2 ** 30),
      loadAverage1m: round(loadavg()[0]),
      node: process.version,
      postgres: (await pool.query('SHOW server_version')).rows[0].server_version,
      natsServer: spawnSync(NATS_BIN, ['--version'], { encoding: 'utf8' }).stdout.trim(),
    },
    lag: {
      ratePerSecond: RATE,
      seconds: LAG_SECONDS,
      operations: lags.length,
      p50Ms: round(percentile(lags, 50)),
      p90Ms: round(percentile(lags, 90)),
      p99Ms: round(percentile(lags, 99)),
      maxMs: round(lags[lags.length - 1]),
    },
    drain: {
      outageSeconds: OUTAGE_SECONDS,
      committedDuringOutage: outageIds.length,
      backlog: backlogIds.length,
      secondsFromWriterStart: round((drainedAt - restartAt) / 1000),
      secondsFromFirstEntry: round((drainedAt - firstAt) / 1000),
      eventsPerSecondFromWriterStart: Math.round(backlogIds.length / ((drainedAt - restartAt) / 1000)),
      eventsPerSecondFromFirstEntry: Math.round(backlogIds.length / ((drainedAt - firstAt) / 1000)),
    },
    goals: { p99UnderMs: 250, drainAtLeastPerSecond: 1000 },
  };
  result.goals.p99Met = result.lag.p99Ms < 250;
  result.goals.drainMet = result.drain.eventsPerSecondFromFirstEntry >= 1000;
  const [{ dupes }] = (
    await pool.query(`SELECT count(*)::int - count(DISTINCT event_id)::int AS dupes FROM activity_log_entries`)
  ).rows;
  result.duplicateEntries = dupes;
  console.log(JSON.stringify(result, null, 2));
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  writeFileSync(path.join(ROOT, '.data/bench/log.json'), JSON.stringify(result, null, 2));
}

async function teardown({ probe: { listener, pool }, processes, nats, db }) {
  await listener.end();
  await pool.end();
  for (const c of processes) await stopChild(c);
  await stopChild(nats.child, 'SIGKILL');
  rmSync(nats.store, { recursive: true, force: true });
  await db.admin.query(`DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`);
  await db.admin.end();
}

main().catch(async (err) => {
  console.error(err);
  for (const c of children) c.kill('SIGKILL');
  process.exit(1);
});
