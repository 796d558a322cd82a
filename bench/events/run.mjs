#!/usr/bin/env node
/**
 * Events out benchmark (docs/benchmarks.md, "Events out"): webhooks and the SSE change feed
 * of records-service, through the gateway (HTTPS) with real PostgreSQL and NATS, each next
 * to a reference fed straight from the same JetStream stream without the platform
 * (reference.mjs: a durable consumer POSTing to its own receiver, an SSE broadcaster).
 *
 * Events are record updates (PUT record through the gateway), spread round-robin over
 * BENCH_VAULTS vaults of BENCH_RECORDS records each; the record's new name is the event's
 * marker, which the receivers and SSE clients read back from what they get.
 *
 * 1. latency: BENCH_RATE writes/s for BENCH_LATENCY_SECONDS, open loop (each write sent at
 *    its time whatever the earlier ones did); each vault has one webhook subscription
 *    (record.updated) to a receiver process (receiver.mjs, node:http + standardwebhooks
 *    verification, dedupe by webhook-id); lag = receipt at the receiver − the write's answer.
 *    One change-feed stream per vault (SSE through the gateway) measures the feed's lag the same way.
 * 2. backlog: both receivers go down; BENCH_BACKLOG writes are made as fast as the API
 *    allows (BENCH_BACKLOG_CONCURRENCY at once); once every delivery row exists the
 *    platform's receiver comes back: time to the first delivery, deliveries/s of the drain;
 *    then the same for the reference's receiver.
 * 3. SSE fan-out: BENCH_SSE_CLIENTS clients (BENCH_SSE_PROCESSES processes, sse-clients.mjs)
 *    on `GET /vault/vault-id/{id}/events` of BENCH_SSE_VAULTS fresh vaults through the
 *    gateway, BENCH_SSE_RATE writes/s for BENCH_SSE_SECONDS; lag = each client's receipt −
 *    the write's answer; CPU and peak RSS of the gateway and records-service. Then the same
 *    clients and writes against the reference broadcaster (plain HTTP, no gateway).
 *
 * Variables: BENCH_RATE (200), BENCH_LATENCY_SECONDS (60), BENCH_VAULTS (20), BENCH_RECORDS
 * (25), BENCH_BACKLOG (20000), BENCH_BACKLOG_CONCURRENCY (32), BENCH_DRAIN_TIMEOUT_S (240),
 * BENCH_SSE_CLIENTS (500), BENCH_SSE_VAULTS (10), BENCH_SSE_RATE (20), BENCH_SSE_SECONDS (30),
 * BENCH_SSE_PROCESSES (2), BENCH_PHASES (latency,backlog,sse), BENCH_RETRY_SCHEDULE_MS (the
 * platform's retry delays during the run), BENCH_SKIP_BUILD=1, BENCH_NODE_ARGS (node options of
 * records-service, e.g. --cpu-prof), BENCH_RECORDS_MAIN (records-service's main.js of another
 * build, for before/after runs), BENCH_EVENTS_INSTANCE=1 (the event pipeline in a second
 * records-service process, the first one serving the API and the streams, as the event pipeline's
 * Deployment), BENCH_WEBHOOKS_INSTANCE=1 (with BENCH_EVENTS_INSTANCE: the webhook fan-out and
 * dispatcher in a third process, as components/webhook-dispatcher), BENCH_FLOOR=1 (the latency
 * phase also runs the reference's durable floor: reference.mjs reading each batch's records and
 * storing a delivery row before a POST, to a receiver of its own), DATABASE_URL, NATS_URL;
 * WEBHOOK_* and CHANGE_FEED_* variables set in the environment reach records-service.
 * Writes .data/bench/events.json.
 */
import { fork, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Pool as HttpPool } from 'undici';
import {
  benchPlans,
  buildApps,
  cpuMsOf,
  cpuMsOfEach,
  databaseBackendPids,
  NATS_URL,
  nodeArgsOf,
  PG_SERVER,
  platform,
  ROOT,
  rssMiBOf,
  runBench,
  signIn,
  startBenchPlatform,
} from '../bench-platform.mjs';

const require = createRequire(import.meta.url);
const pg = require('pg');
const HERE = path.dirname(fileURLToPath(import.meta.url));

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const RATE = num('BENCH_RATE', 200);
const LATENCY_SECONDS = num('BENCH_LATENCY_SECONDS', 60);
const VAULTS = num('BENCH_VAULTS', 20);
const RECORDS = num('BENCH_RECORDS', 25);
const BACKLOG = num('BENCH_BACKLOG', 20_000);
const BACKLOG_CONCURRENCY = num('BENCH_BACKLOG_CONCURRENCY', 32);
const DRAIN_TIMEOUT_S = num('BENCH_DRAIN_TIMEOUT_S', 240);
const SSE_CLIENTS = num('BENCH_SSE_CLIENTS', 500);
const SSE_VAULTS = num('BENCH_SSE_VAULTS', 10);
const SSE_RATE = num('BENCH_SSE_RATE', 20);
const SSE_SECONDS = num('BENCH_SSE_SECONDS', 30);
const SSE_PROCESSES = num('BENCH_SSE_PROCESSES', 2);
const PHASES = (process.env.BENCH_PHASES ?? 'latency,backlog,sse').split(',');
/** The event pipeline (relay, consumers, dispatcher) in a second records-service instance of its own. */
const EVENTS_INSTANCE = process.env.BENCH_EVENTS_INSTANCE === '1';
/** The webhook fan-out and dispatcher in a records-service process of their own, apart from the rest of the pipeline. */
const WEBHOOKS_INSTANCE = process.env.BENCH_WEBHOOKS_INSTANCE === '1';
if (WEBHOOKS_INSTANCE && !EVENTS_INSTANCE) throw new Error('BENCH_WEBHOOKS_INSTANCE=1 needs BENCH_EVENTS_INSTANCE=1');
/**
 * The latency phase also runs the reference's durable floor (reference.mjs with
 * REF_DATABASE_URL): its consumer reading each batch's records and storing a delivery row
 * before a POST, to its own receiver.
 */
const FLOOR = process.env.BENCH_FLOOR === '1';
/** The application_name of the floor's connections (their backends count on the floor's side). */
const FLOOR_APP = 'bench-events-floor';
const PIPELINE_ROLES = ['ACTIVITY_LOG_RELAY', 'ACTIVITY_LOG_WRITER', 'WEBHOOK_DISPATCHER', 'CHANGE_FEED_WRITER'];
/** Retries after 1 s, 5 s, then every 10 s for 10 minutes: an outage ends within 10 s of the receiver's return. */
const RETRY_SCHEDULE = process.env.BENCH_RETRY_SCHEDULE_MS ?? [1000, 5000, ...Array(60).fill(10_000)].join(',');
const HOST = 'records-api.localhost';
const RECORD_BODY = {
  description: 'Issued 2024, renews 2034',
  recordTypeName: 'identityDocs',
  recordSubtypeName: 'passport',
  uniqueReference: 'P1234567',
  storageLocation: 'Home safe',
};

const log = (msg) => console.log(`[bench:events] ${msg}`);
const cleanups = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.timeOrigin + performance.now();
const r1 = (x) => Math.round(x * 10) / 10;
const load = () => loadavg().map((l) => +l.toFixed(2));

/** p-th percentile (0–100) of numbers. */
function percentiles(values) {
  const s = Float64Array.from(values).sort();
  const at = (p) => (s.length ? r1(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]) : null);
  return { count: s.length, p50: at(50), p90: at(90), p99: at(99), max: at(100) };
}

/**
 * A forked helper process; `ask` sends a message and resolves with its answer (one at a
 * time); with `greets`, `first` resolves with the message it sends by itself when ready.
 */
function helper(file, env = {}, greets = false) {
  const child = fork(path.join(HERE, file), [], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const answers = [];
  child.on('message', (m) => answers.shift()?.(m));
  const exited = new Promise((r) => child.once('exit', r));
  cleanups.unshift(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(3000)]);
  });
  const first = greets ? new Promise((r) => answers.push(r)) : undefined;
  return {
    child,
    first,
    exited,
    ask: (m) =>
      new Promise((resolve) => {
        answers.push(resolve);
        child.send(m);
      }),
  };
}

async function main() {
  buildApps(log);
  const startedAt = new Date().toISOString();
  const loadAtStart = load();
  const work = mkdtempSync(path.join(tmpdir(), 'bench-events-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  const namespace = `bench_events_${randomBytes(3).toString('hex')}`;
  const plans = benchPlans((f) => {
    f['account.maxOwnedVaults'] = String(VAULTS + SSE_VAULTS + 10);
    f['vault.maxVaultRecords'] = '100000';
  });
  const p = await startBenchPlatform({
    name: 'events',
    work,
    plans,
    cleanups,
    log,
    env: {
      TOKEN_TTL_SECONDS: '3600',
      EVENTS_NAMESPACE: namespace,
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE,
      // the SSE phase holds BENCH_SSE_CLIENTS streams as one caller of one tenant
      CHANGE_FEED_MAX_STREAMS_PER_CALLER: process.env.CHANGE_FEED_MAX_STREAMS_PER_CALLER ?? String(Math.max(SSE_CLIENTS, 10)),
      CHANGE_FEED_MAX_STREAMS_PER_TENANT: process.env.CHANGE_FEED_MAX_STREAMS_PER_TENANT ?? String(Math.max(SSE_CLIENTS, 1000)),
      ...(EVENTS_INSTANCE ? Object.fromEntries(PIPELINE_ROLES.map((r) => [r, 'off'])) : {}),
    },
    // e.g. BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile records-service
    nodeArgs: process.env.BENCH_NODE_ARGS ? { 'records-service': nodeArgsOf(process.env.BENCH_NODE_ARGS) } : undefined,
    // another build of records-service (e.g. a worktree of the commit to compare with)
    mains: process.env.BENCH_RECORDS_MAIN ? { 'records-service': path.resolve(process.env.BENCH_RECORDS_MAIN) } : undefined,
  });
  const token = await signIn(p);
  const api = apiClient(p.gatewayUrl, token);
  cleanups.unshift(() => api.close());
  const db = new pg.Pool({ connectionString: platform.databaseUrl(PG_SERVER, p.databases['records-service']), max: 2 });
  cleanups.unshift(() => db.end());
  const pids = { gateway: p.children.get('gateway').pid, 'records-service': p.children.get('records-service').pid };
  if (EVENTS_INSTANCE) {
    const apart = WEBHOOKS_INSTANCE ? ['WEBHOOK_DISPATCHER'] : [];
    pids['records-events'] = await startEventsInstance(
      p,
      'records-events',
      PIPELINE_ROLES.filter((r) => !apart.includes(r)),
    );
    if (WEBHOOKS_INSTANCE) pids['records-webhooks'] = await startEventsInstance(p, 'records-webhooks', apart);
  }

  log(`seeding ${VAULTS} + ${SSE_VAULTS} vaults of ${RECORDS} records`);
  const vaults = await seedVaults(api, VAULTS, 'Hooks');
  const sseVaults = PHASES.includes('sse') ? await seedVaults(api, SSE_VAULTS, 'Feed') : [];

  // The platform's receiver, one subscription per vault; the reference's receiver and consumer.
  const receiver = helper('receiver.mjs');
  const { port: receiverPort } = await receiver.ask({ cmd: 'listen' });
  const secrets = {};
  for (const v of vaults) {
    const r = await api.call('POST', `/api/v1/vault/vault-id/${v.id}/webhooks`, {
      url: `http://127.0.0.1:${receiverPort}/hooks`,
      events: ['record.updated'],
    });
    if (r.status !== 201) throw new Error(`subscribe answered ${r.status}: ${JSON.stringify(r.body)}`);
    secrets[v.id] = r.body.secret;
  }
  await receiver.ask({ cmd: 'secrets', secrets });
  const refSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const {
    receiver: refReceiver,
    receiverPort: refReceiverPort,
    process: reference,
  } = await startReference(namespace, vaults, refSecret);
  // the reference's durable floor (BENCH_FLOOR=1): reading the records database and storing its delivery rows there
  const floor = FLOOR
    ? await startReference(namespace, vaults, refSecret, {
        REF_DATABASE_URL: platform.databaseUrl(PG_SERVER, p.databases['records-service']),
        REF_DATABASE_APP: FLOOR_APP,
      })
    : null;
  // the reference's SSE broadcaster (its ordered consumer reads from the stream's new messages on)
  const { port: refSsePort } = await reference.ask({ cmd: 'sse' });
  const ctx = {
    api,
    db,
    pids,
    vaults,
    sseVaults,
    receiver,
    receiverPort,
    refReceiver,
    refReceiverPort,
    reference,
    refSsePort,
    floor,
    p,
    token,
  };

  const results = {};
  // A short warm-up (connections, caches), not measured.
  await openLoop(api, writesOver(vaults, 'W'), Math.min(RATE, 50), 3);
  await sleep(2000);
  await receiver.ask({ cmd: 'take' });
  await refReceiver.ask({ cmd: 'take' });
  await floor?.receiver.ask({ cmd: 'take' });
  if (PHASES.includes('latency')) results.latency = await measureLatency(ctx);
  // the floor's consumer stops: the later phases compare the platform with the reference only
  if (floor?.process.child.connected) {
    floor.process.child.send({ cmd: 'exit' });
    await Promise.race([floor.process.exited, sleep(10_000)]);
  }
  if (PHASES.includes('backlog')) results.backlog = await measureBacklog(ctx);
  if (PHASES.includes('sse')) results.sse = await measureSse(ctx);
  writeReport({ results, startedAt, loadAtStart, namespace });
}

/**
 * A reference process (reference.mjs, `env` added to its environment) with a receiver of its
 * own, its webhooks consumer started: the reference, or with REF_DATABASE_URL its durable floor.
 */
async function startReference(namespace, vaults, secret, env = {}) {
  const receiver = helper('receiver.mjs');
  const { port: receiverPort } = await receiver.ask({ cmd: 'listen' });
  await receiver.ask({ cmd: 'secrets', secrets: Object.fromEntries(vaults.map((v) => [v.id, secret])) });
  const reference = helper(
    'reference.mjs',
    {
      NATS_URL,
      STREAM: `${namespace}_VAULT_EVENTS`,
      SUBJECT_PREFIX: `${namespace}.`,
      RECEIVER_URL: `http://127.0.0.1:${receiverPort}/hooks`,
      REF_SECRET: secret,
      ...env,
    },
    true,
  );
  await reference.first;
  await reference.ask({ cmd: 'webhooks' });
  return { receiver, receiverPort, process: reference };
}

/**
 * Another records-service process (same build, same environment as the first, read from
 * /proc) that runs `roles`, parts of the event pipeline the first one has turned off (the
 * outbox relay, the activity-log writer, the webhook fan-out and dispatcher, the change-feed
 * writer), and no text extraction, as the event pipeline's Deployment; its HTTP port serves
 * nothing of the run. The first one's streams are woken by the feed writer's NOTIFY.
 * Answers its pid.
 */
async function startEventsInstance(p, name, roles) {
  const first = p.children.get('records-service');
  const env = Object.fromEntries(
    readFileSync(`/proc/${first.pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  const port = await platform.freePort();
  for (const r of roles) env[r] = 'inline';
  // as the event pipeline's Deployment (deploy/k8s/base/records-service/event-pipeline.yaml): the API's
  // processes extract text, the pipeline's do not
  env.SEARCH_EXTRACTION = 'off';
  env.PORT = String(port);
  env.METRICS_PORT = String(await platform.freePort());
  const child = spawn(process.execPath, first.spawnargs.slice(1), {
    cwd: readlinkSync(`/proc/${first.pid}/cwd`),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const forward = (chunk) => {
    for (const line of chunk.toString().split('\n')) if (/ERROR|WARN|Error/.test(line)) console.log(`  [${name}] ${line}`);
  };
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  cleanups.unshift(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(10_000)]);
  });
  await platform.waitForReady(`http://127.0.0.1:${port}/health/ready`, 60_000, () => child.exitCode === null);
  log(`${roles.join(', ')} in a records-service process of their own (${name}, pid ${child.pid})`);
  return child.pid;
}

/** Requests to records-service through the gateway (HTTPS, Host records-api.localhost). */
function apiClient(gatewayUrl, token) {
  const pool = new HttpPool(gatewayUrl, {
    connections: 128,
    pipelining: 1,
    connect: { rejectUnauthorized: false, servername: HOST },
  });
  const headers = { host: HOST, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return {
    async call(method, route, body) {
      const res = await pool.request({
        method,
        path: route,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.body.text();
      let parsed = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON */
      }
      return { status: res.statusCode, body: parsed };
    },
    close: () => pool.close(),
  };
}

/** `n` vaults, each with RECORDS records: [{id, records: [id]}]. */
async function seedVaults(api, n, name) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const v = await api.call('POST', '/api/v1/vault', { name: `${name} ${i}` });
    if (v.status !== 201) throw new Error(`vault create answered ${v.status}: ${JSON.stringify(v.body)}`);
    const records = await Promise.all(
      Array.from({ length: RECORDS }, async (_, j) => {
        const r = await api.call('POST', `/api/v1/vault/vault-id/${v.body.id}/records`, { ...RECORD_BODY, name: `Record ${j}` });
        if (r.status !== 200) throw new Error(`record create answered ${r.status}: ${JSON.stringify(r.body)}`);
        return r.body.id;
      }),
    );
    out.push({ id: v.body.id, records });
  }
  return out;
}

/** Write i: vault i mod n, the vault's records in turn; the new name `${prefix}-${i}` is the marker. */
function writesOver(vaults, prefix) {
  return (i) => {
    const v = vaults[i % vaults.length];
    const recordId = v.records[Math.floor(i / vaults.length) % v.records.length];
    return { marker: `${prefix}-${i}`, vaultId: v.id, route: `/api/v1/vault/vault-id/${v.id}/records/record-id/${recordId}` };
  };
}

/**
 * Open loop: write i is due at start + i/rate and sent then, whatever the earlier ones did.
 * Resolves with {writes: Map marker → {vaultId, sentAt, answeredAt}, statuses, errors, seconds}.
 */
async function openLoop(api, write, rate, seconds, offset = 0) {
  const writes = new Map();
  const statuses = {};
  let errors = 0;
  const inflight = new Set();
  const total = Math.round(rate * seconds);
  const start = now() + 20;
  let sent = 0;
  while (sent < total) {
    while (sent < total && start + (sent * 1000) / rate <= now()) {
      const w = write(offset + sent);
      const entry = { vaultId: w.vaultId, sentAt: start + (sent * 1000) / rate, answeredAt: null };
      writes.set(w.marker, entry);
      const job = api
        .call('PUT', w.route, { ...RECORD_BODY, name: w.marker })
        .then((r) => {
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          if (r.status === 200) entry.answeredAt = now();
        })
        .catch(() => errors++)
        .finally(() => inflight.delete(job));
      inflight.add(job);
      sent++;
    }
    await sleep(Math.max(0, Math.min(start + (sent * 1000) / rate - now(), 2)));
  }
  await Promise.all(inflight);
  return { writes, statuses, errors, seconds: (now() - start) / 1000 };
}

/** Closed loop: `total` writes, `concurrency` at a time, as fast as the API answers. */
async function closedLoop(api, write, total, concurrency, offset = 0) {
  const statuses = {};
  let next = 0;
  const started = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const w = write(offset + next++);
        const r = await api.call('PUT', w.route, { ...RECORD_BODY, name: w.marker }).catch(() => ({ status: 0 }));
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      }
    }),
  );
  const seconds = (now() - started) / 1000;
  return { statuses, seconds, writesPerSecond: Math.round(total / seconds) };
}

/** What one side's receiver got in the phase: its lags and counts. */
async function receivedBy(db, writes, got) {
  return {
    ...(await lags(db, writes, got.rows)),
    delivered: got.rows.length,
    requests: got.requests,
    duplicates: got.duplicates,
    rejected: got.rejected,
  };
}

/** Collects a receiver's rows until `expected` arrived or `timeoutMs` passed. */
async function collect(receiver, expected, timeoutMs, rows = []) {
  const until = now() + timeoutMs;
  let stats;
  for (;;) {
    stats = await receiver.ask({ cmd: 'take' });
    rows.push(...stats.rows);
    if (rows.length >= expected || now() > until) break;
    await sleep(250);
  }
  return { rows, requests: stats.requests, duplicates: stats.duplicates, rejected: stats.rejected };
}

/**
 * Lag of each received event against its write's answer (and its send): the webhook-id is
 * the event id, whose outbox row carries the record name the write set (the marker).
 */
async function lags(db, writes, rows) {
  const { rows: events } = await db.query(
    `SELECT id, payload->'record'->>'name' AS marker FROM outbox_events WHERE id = ANY($1::uuid[])`,
    [rows.map((r) => r[0])],
  );
  const markers = new Map(events.map((e) => [e.id, e.marker]));
  const fromAnswer = [];
  const fromSend = [];
  const seen = new Set();
  for (const [id, at] of rows) {
    const marker = markers.get(id);
    const w = writes.get(marker);
    if (!w || w.answeredAt === null || seen.has(marker)) continue;
    seen.add(marker);
    fromAnswer.push(at - w.answeredAt);
    fromSend.push(at - w.sentAt);
  }
  return { fromAnswer: percentiles(fromAnswer), fromSend: percentiles(fromSend), matched: seen.size };
}

/**
 * Where a delivery's time went, from the delivery rows of the phase: event (the write's
 * commit, the CloudEvent's time) → delivery row stored (relay + stream + fan-out), and
 * row stored → delivered (the dispatcher and the POST).
 */
async function breakdown(db, since) {
  const { rows } = await db.query(
    `SELECT extract(epoch FROM (created_at - (body::jsonb->>'time')::timestamptz)) * 1000 AS stored,
            extract(epoch FROM (delivered_at - created_at)) * 1000 AS sent,
            extract(epoch FROM (lag(delivered_at) OVER (PARTITION BY webhook_id, vault_id ORDER BY stream_seq) - created_at)) * 1000 AS behind
       FROM webhook_deliveries WHERE created_at >= $1 AND status = 'delivered'`,
    [since],
  );
  const { rows: relayed } = await db.query(
    `SELECT extract(epoch FROM (published_at - occurred_at)) * 1000 AS relayed
       FROM outbox_events WHERE occurred_at >= $1 AND published_at IS NOT NULL`,
    [since],
  );
  return {
    eventToPublished: percentiles(relayed.map((r) => Number(r.relayed))),
    eventToStored: percentiles(rows.map((r) => Number(r.stored))),
    storedToDelivered: percentiles(rows.map((r) => Number(r.sent))),
    storedToDeliveredFree: percentiles(rows.filter((r) => !(Number(r.behind) > 0)).map((r) => Number(r.sent))),
    behindPrevious: percentiles(rows.filter((r) => Number(r.behind) > 0).map((r) => Number(r.behind))),
  };
}

/**
 * The change feed's own lag at the latency phase's write rate: one SSE client per vault
 * through the gateway (each write is one event of one stream); lag = receipt − the write's
 * answer, as for the webhooks. Per stage, from the event's time (the CloudEvent's, set in
 * the write's transaction): the relay's publish (outbox), the feed row written (the
 * writer's change_feed_write_lag_seconds histogram, read from its /metrics before and after
 * the phase: bucket bounds) and the receipt.
 */
async function openFeedClients({ p, token, vaults, writerPid, refSsePort }) {
  const clients = helper('sse-clients.mjs');
  const refClients = helper('sse-clients.mjs');
  const headers = { host: HOST, authorization: `Bearer ${token}` };
  const targets = vaults.map((v) => ({ url: `${p.gatewayUrl}/api/v1/vault/vault-id/${v.id}/events`, headers, servername: HOST }));
  const refTargets = vaults.map((v) => ({ url: `http://127.0.0.1:${refSsePort}/vault/${v.id}/events`, headers: {} }));
  const connected = await clients.ask({ cmd: 'connect', targets });
  if (connected.connected !== vaults.length) throw new Error(`feed clients: ${JSON.stringify(connected)}`);
  const refConnected = await refClients.ask({ cmd: 'connect', targets: refTargets });
  if (refConnected.connected !== vaults.length) throw new Error(`reference feed clients: ${JSON.stringify(refConnected)}`);
  await sleep(500);
  await clients.ask({ cmd: 'take' });
  await refClients.ask({ cmd: 'take' });
  const written0 = await feedWriteLagBuckets(writerPid);
  return {
    async lags(writes) {
      const taken = await clients.ask({ cmd: 'take' });
      const refTaken = await refClients.ask({ cmd: 'take' });
      await clients.ask({ cmd: 'close' });
      await refClients.ask({ cmd: 'close' });
      const fromAnswer = [];
      const fromEvent = [];
      const eventToAnswer = [];
      for (const [marker, at, occurredAt] of taken.rows) {
        const w = writes.get(marker);
        if (!w || w.answeredAt === null) continue;
        fromAnswer.push(at - w.answeredAt);
        if (Number.isFinite(occurredAt)) {
          fromEvent.push(at - occurredAt);
          eventToAnswer.push(w.answeredAt - occurredAt);
        }
      }
      const refFromAnswer = [];
      for (const [marker, at] of refTaken.rows) {
        const w = writes.get(marker);
        if (w && w.answeredAt !== null) refFromAnswer.push(at - w.answeredAt);
      }
      const written1 = await feedWriteLagBuckets(writerPid);
      return {
        fromAnswer: percentiles(fromAnswer),
        received: taken.rows.length,
        // the floor of the hop: the reference's broadcaster, fed from the same stream
        reference: { fromAnswer: percentiles(refFromAnswer), received: refTaken.rows.length },
        stages: {
          eventToAnswer: percentiles(eventToAnswer),
          eventToWritten: bucketPercentiles(written0, written1),
          eventToReceived: percentiles(fromEvent),
        },
      };
    },
  };
}

/** The cumulative buckets of change_feed_write_lag_seconds from the /metrics of the process `pid` (null when unread). */
async function feedWriteLagBuckets(pid) {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const port = env.find((kv) => kv.startsWith('METRICS_PORT='))?.slice('METRICS_PORT='.length);
    if (!port) return null;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const buckets = [];
    for (const m of text.matchAll(/^change_feed_write_lag_seconds_bucket\{[^}]*le="([^"]+)"[^}]*\} (\d+)/gm)) {
      buckets.push([m[1] === '+Inf' ? Infinity : Number(m[1]) * 1000, Number(m[2])]);
    }
    return buckets.length ? buckets : null;
  } catch {
    return null;
  }
}

/** p50 / p90 / p99 of a histogram's growth between two readings, as the upper bound (ms) of the bucket holding each. */
function bucketPercentiles(before, after) {
  if (!after) return null;
  const grown = after.map(([le, n], i) => [le, n - (before?.[i]?.[1] ?? 0)]);
  const count = grown.at(-1)[1];
  const at = (q) => grown.find(([, n]) => n >= Math.ceil(q * count))?.[0] ?? null;
  return { count, p50: at(0.5), p90: at(0.9), p99: at(0.99), bucketBounds: true };
}

async function measureLatency({ api, db, vaults, receiver, refReceiver, reference, refSsePort, floor, pids, p, token }) {
  log(
    `latency: ${RATE} record updates/s over ${vaults.length} vaults for ${LATENCY_SECONDS} s (open loop), webhooks to both receivers, one change-feed stream per vault`,
  );
  const feed = await openFeedClients({
    p,
    token,
    vaults,
    refSsePort,
    writerPid: pids['records-events'] ?? pids['records-service'],
  });
  const l0 = load();
  const cpu0 = cpuSnapshot(pids);
  const sides0 = await costSides({ pids, db, p, reference, floor });
  const cost0 = cpuOfSides(sides0);
  const since = new Date();
  const run = await openLoop(api, writesOver(vaults, 'L'), RATE, LATENCY_SECONDS);
  const ok = [...run.writes.values()].filter((w) => w.answeredAt !== null).length;
  log(
    `  ${ok} writes answered 200 in ${run.seconds.toFixed(1)} s ${JSON.stringify(run.statuses)} errors ${run.errors}; waiting for deliveries`,
  );
  const platformGot = await collect(receiver, ok, 60_000);
  const referenceGot = await collect(refReceiver, ok, 30_000);
  const floorGot = floor ? await collect(floor.receiver, ok, 30_000) : null;
  const cpu = cpuSince(cpu0, pids, run.seconds);
  const sides1 = await costSides({ pids, db, p, reference, floor });
  const cpuPerEventMicros = perEvent(cost0, sides0, cpuOfSides(sides1), sides1, ok);
  const changeFeed = await feed.lags(run.writes);
  const result = {
    rate: RATE,
    seconds: LATENCY_SECONDS,
    vaults: vaults.length,
    writes: run.writes.size,
    writesOk: ok,
    writeStatuses: run.statuses,
    writeErrors: run.errors,
    platform: await receivedBy(db, run.writes, platformGot),
    reference: await receivedBy(db, run.writes, referenceGot),
    ...(floorGot && { floor: await receivedBy(db, run.writes, floorGot) }),
    platformBreakdown: await breakdown(db, since),
    changeFeed,
    cpuPercent: cpu,
    cpuPerEventMicros,
    load: [l0, load()],
  };
  log(`  platform breakdown: ${JSON.stringify(result.platformBreakdown)}`);
  log(`  CPU per event (µs): ${JSON.stringify(cpuPerEventMicros)}`);
  for (const side of ['platform', 'reference', ...(floorGot ? ['floor'] : [])]) {
    const s = result[side];
    log(
      `  ${side}: ${s.delivered} delivered (${s.matched} matched), lag from answer p50 ${s.fromAnswer.p50} ms p99 ${s.fromAnswer.p99} ms max ${s.fromAnswer.max} ms`,
    );
  }
  log(`  change feed stages from the event's time: ${JSON.stringify(changeFeed.stages)}`);
  log(
    `  change feed: ${changeFeed.received} received, lag from answer p50 ${changeFeed.fromAnswer.p50} ms p99 ${changeFeed.fromAnswer.p99} ms max ${changeFeed.fromAnswer.max} ms; cpu ${JSON.stringify(cpu)}`,
  );
  return result;
}

/**
 * Backlog: both receivers down, BACKLOG writes as fast as the API allows; once every
 * delivery row exists the platform's receiver returns and its drain is timed, then the
 * reference's.
 */
async function measureBacklog({ api, db, vaults, receiver, receiverPort, refReceiver, refReceiverPort, pids }) {
  log(`backlog: receivers down, ${BACKLOG} record updates as fast as the API allows (${BACKLOG_CONCURRENCY} at once)`);
  const l0 = load();
  await receiver.ask({ cmd: 'close' });
  await refReceiver.ask({ cmd: 'close' });
  const downAt = now();
  const {
    rows: [before],
  } = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries`);
  const produced = await closedLoop(api, writesOver(vaults, 'B'), BACKLOG, BACKLOG_CONCURRENCY);
  log(
    `  produced in ${produced.seconds.toFixed(1)} s (${produced.writesPerSecond} writes/s) ${JSON.stringify(produced.statuses)}`,
  );
  const expected = produced.statuses[200] ?? 0;
  // Every delivery row stored (the fan-out keeps up during an outage) before the receiver returns.
  const until = now() + 120_000;
  let pending;
  for (;;) {
    const {
      rows: [r],
    } = await db.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'pending')::int AS pending FROM webhook_deliveries`,
    );
    pending = r.pending;
    if (r.n - before.n >= expected || now() > until) break;
    await sleep(500);
  }
  const fanOutDoneAt = now();
  const {
    rows: [attempts],
  } = await db.query(
    `SELECT count(*) FILTER (WHERE attempts > 0)::int AS tried, max(attempts)::int AS most FROM webhook_deliveries WHERE status = 'pending'`,
  );
  log(
    `  ${pending} deliveries pending (${attempts.tried} attempted so far, at most ${attempts.most} times), outage ${((fanOutDoneAt - downAt) / 1000).toFixed(1)} s; receiver back`,
  );

  const drain = async (target, port, timeoutMs, pidsOf) => {
    const cpu0 = cpuSnapshot(pidsOf);
    await target.ask({ cmd: 'listen', port });
    const backAt = now();
    const got = await collect(target, expected, timeoutMs);
    const times = got.rows.map((r) => r[1]).sort((a, b) => a - b);
    const first = times[0];
    const last = times.at(-1);
    // Deliveries per second in each whole second after the first one.
    const perSecond = [];
    for (const t of times) perSecond[Math.floor((t - first) / 1000)] = (perSecond[Math.floor((t - first) / 1000)] ?? 0) + 1;
    const seconds = (last - first) / 1000;
    return {
      delivered: got.rows.length,
      duplicates: got.duplicates,
      rejected: got.rejected,
      requests: got.requests,
      firstDeliveryAfterMs: first === undefined ? null : Math.round(first - backAt),
      drainSeconds: r1(seconds),
      deliveriesPerSecond: seconds > 0 ? Math.round((got.rows.length - 1) / seconds) : null,
      deliveriesPerSecondFromBack: last ? Math.round(got.rows.length / ((last - backAt) / 1000)) : null,
      perSecond: perSecond.map((n) => n ?? 0),
      cpuPercent: cpuSince(cpu0, pidsOf, seconds),
    };
  };
  const platformDrain = await drain(receiver, receiverPort, DRAIN_TIMEOUT_S * 1000, pids);
  log(
    `  platform: ${platformDrain.delivered}/${expected} delivered, first after ${platformDrain.firstDeliveryAfterMs} ms, ${platformDrain.deliveriesPerSecond} deliveries/s over ${platformDrain.drainSeconds} s`,
  );
  const referenceDrain = await drain(refReceiver, refReceiverPort, 120_000, {});
  log(
    `  reference: ${referenceDrain.delivered}/${expected} delivered, first after ${referenceDrain.firstDeliveryAfterMs} ms, ${referenceDrain.deliveriesPerSecond} deliveries/s over ${referenceDrain.drainSeconds} s`,
  );
  const { rows: statuses } = await db.query(
    `SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status ORDER BY status`,
  );
  return {
    backlog: expected,
    vaults: vaults.length,
    produce: produced,
    outageSeconds: r1((fanOutDoneAt - downAt) / 1000),
    pendingWhenBack: pending,
    headsAttemptedDuringOutage: attempts.tried,
    retrySchedule: RETRY_SCHEDULE,
    platform: platformDrain,
    reference: referenceDrain,
    deliveryStatusesAfter: Object.fromEntries(statuses.map((s) => [s.status, s.n])),
    load: [l0, load()],
  };
}

/** SSE fan-out through the gateway, then against the reference broadcaster. */
async function measureSse({ api, sseVaults, p, token, reference, refSsePort, pids }) {
  const clients = Array.from({ length: SSE_PROCESSES }, () => helper('sse-clients.mjs'));
  const targetsFor = (urlOf, headers, servername) =>
    Array.from({ length: SSE_CLIENTS }, (_, i) => ({
      url: urlOf(sseVaults[i % sseVaults.length].id),
      headers,
      ...(servername ? { servername } : {}),
    }));
  const run = async (name, targets, pidsOf) => {
    log(`sse (${name}): ${targets.length} clients on ${sseVaults.length} vaults in ${SSE_PROCESSES} processes`);
    const share = (k) => targets.filter((_, i) => i % SSE_PROCESSES === k);
    const connectStarted = now();
    const connected = await Promise.all(clients.map((c, k) => c.ask({ cmd: 'connect', targets: share(k) })));
    const connectSeconds = (now() - connectStarted) / 1000;
    const open = connected.reduce((n, c) => n + c.connected, 0);
    log(`  ${open} connected in ${connectSeconds.toFixed(1)} s ${JSON.stringify(connected.map((c) => c.statuses))}`);
    await sleep(3000);
    await Promise.all(clients.map((c) => c.ask({ cmd: 'take' })));
    const rss0 = Object.fromEntries(Object.entries(pidsOf).map(([app, pid]) => [app, rssMiBOf(pid)]));
    const peak = { ...rss0 };
    const sampler = setInterval(() => {
      for (const [app, pid] of Object.entries(pidsOf)) peak[app] = Math.max(peak[app], rssMiBOf(pid));
    }, 500);
    const cpu0 = cpuSnapshot(pidsOf);
    const l0 = load();
    const writes = await openLoop(api, writesOver(sseVaults, `S${name[0]}`), SSE_RATE, SSE_SECONDS);
    await sleep(3000);
    clearInterval(sampler);
    const cpu = cpuSince(cpu0, pidsOf, SSE_SECONDS + 3);
    const taken = await Promise.all(clients.map((c) => c.ask({ cmd: 'take' })));
    const lagsMs = [];
    let matched = 0;
    for (const t of taken)
      for (const [marker, at] of t.rows) {
        const w = writes.writes.get(marker);
        if (!w || w.answeredAt === null) continue;
        matched++;
        lagsMs.push(at - w.answeredAt);
      }
    const ok = [...writes.writes.values()].filter((w) => w.answeredAt !== null).length;
    const expected = ok * (SSE_CLIENTS / sseVaults.length);
    await Promise.all(clients.map((c) => c.ask({ cmd: 'close' })));
    const result = {
      clients: targets.length,
      connected: open,
      connectSeconds: r1(connectSeconds),
      writes: writes.writes.size,
      writesOk: ok,
      writeStatuses: writes.statuses,
      expectedMessages: expected,
      receivedMessages: matched,
      lag: percentiles(lagsMs),
      rssMiB: Object.fromEntries(Object.entries(rss0).map(([app, v]) => [app, { before: r1(v), peak: r1(peak[app]) }])),
      cpuPercent: cpu,
      load: [l0, load()],
    };
    log(
      `  ${matched}/${expected} messages, lag p50 ${result.lag.p50} ms p99 ${result.lag.p99} ms max ${result.lag.max} ms; cpu ${JSON.stringify(cpu)}; rss ${JSON.stringify(result.rssMiB)}`,
    );
    return result;
  };
  const headers = { host: HOST, authorization: `Bearer ${token}` };
  const platformRun = await run(
    'platform',
    targetsFor((id) => `${p.gatewayUrl}/api/v1/vault/vault-id/${id}/events`, headers, HOST),
    pids,
  );
  const referenceRun = await run(
    'reference',
    targetsFor((id) => `http://127.0.0.1:${refSsePort}/vault/${id}/events`, {}),
    { reference: reference.child.pid },
  );
  return {
    rate: SSE_RATE,
    seconds: SSE_SECONDS,
    vaults: sseVaults.length,
    processes: SSE_PROCESSES,
    platform: platformRun,
    reference: referenceRun,
  };
}

/**
 * The processes an event costs CPU in, by side: the platform's (its processes and the
 * PostgreSQL backends of the records database: the API's and the pipeline's pools), the
 * reference's process (its webhooks and its SSE broadcaster), and the NATS server both use
 * (when it runs on this machine). The relay that feeds the stream is the platform's, though
 * the reference reads what it publishes too. With the durable floor, its process and its
 * backends in the records database (by application_name) are a side of their own.
 */
async function costSides({ pids, db, p, reference, floor }) {
  const nats = spawnSync('pgrep', ['-x', 'nats-server']).stdout?.toString().trim().split('\n').filter(Boolean) ?? [];
  const backends = await databaseBackendPids(db, p.databases['records-service']);
  const floorBackends = floor
    ? (await db.query('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [FLOOR_APP])).rows.map((r) => r.pid)
    : [];
  return {
    platform: { ...pids, database: backends.filter((pid) => !floorBackends.includes(pid)) },
    reference: { reference: reference.child.pid },
    ...(floor && { floor: { floor: floor.process.child.pid, database: floorBackends } }),
    shared:
      /^nats:\/\/(127\.0\.0\.1|localhost)[:/]/.test(NATS_URL) && nats.length === 1 ? { 'nats-server': Number(nats[0]) } : {},
  };
}

/** CPU ms so far of every pid of the sides (a name stands for one pid or a list). */
function cpuOfSides(sides) {
  return cpuMsOfEach(Object.values(sides).flatMap((names) => Object.values(names).flat()));
}

/**
 * CPU µs per event of each name of each side between two readings, with a total per side:
 * the pids of both readings (a database backend that started in between counts from zero, one
 * that ended in between is left out).
 */
function perEvent(before, sidesBefore, after, sidesAfter, events) {
  return Object.fromEntries(
    Object.entries(sidesAfter).map(([side, names]) => {
      const row = Object.fromEntries(
        Object.entries(names).map(([name, pids]) => {
          const all = new Set([pids, sidesBefore[side]?.[name] ?? []].flat());
          const ms = [...all].reduce((t, pid) => t + (after[pid] === undefined ? 0 : after[pid] - (before[pid] ?? 0)), 0);
          return [name, Math.round((ms * 1000) / Math.max(1, events))];
        }),
      );
      return [side, { ...row, total: Object.values(row).reduce((a, b) => a + b, 0) }];
    }),
  );
}

function cpuSnapshot(pids) {
  return { at: now(), ms: Object.fromEntries(Object.entries(pids).map(([app, pid]) => [app, cpuMsOf(pid)])) };
}

/** CPU used per process since the snapshot, in % of one core over `seconds` (the measured window). */
function cpuSince(snapshot, pids, seconds) {
  const wall = seconds > 0 ? seconds * 1000 : now() - snapshot.at;
  return Object.fromEntries(
    Object.entries(pids).map(([app, pid]) => [app, Math.round(((cpuMsOf(pid) - snapshot.ms[app]) / wall) * 100)]),
  );
}

function measuredCommit() {
  const git = (...args) => spawnSync('git', args, { cwd: ROOT }).stdout?.toString().trim() ?? '';
  const head = git('rev-parse', '--short', 'HEAD') || 'unknown';
  return git('status', '--porcelain', '--', 'apps', 'libs') ? `${head} + uncommitted changes` : head;
}

/** Whether a measured value is at most the goal (nothing measured: not met). */
const met = (value, goal) => (value !== null && Number.isFinite(goal) && value <= goal ? 'met' : 'not met');

function writeReport({ results, startedAt, loadAtStart, namespace }) {
  const report = {
    date: startedAt,
    commit: measuredCommit(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      loadAtStart,
      loadAtEnd: load(),
    },
    settings: {
      rate: RATE,
      latencySeconds: LATENCY_SECONDS,
      vaults: VAULTS,
      recordsPerVault: RECORDS,
      backlog: BACKLOG,
      backlogConcurrency: BACKLOG_CONCURRENCY,
      sseClients: SSE_CLIENTS,
      sseVaults: SSE_VAULTS,
      sseRate: SSE_RATE,
      sseSeconds: SSE_SECONDS,
      sseProcesses: SSE_PROCESSES,
      retrySchedule: RETRY_SCHEDULE,
      namespace,
      webhookConcurrency: process.env.WEBHOOK_CONCURRENCY ?? 'default',
      recordsMain: process.env.BENCH_RECORDS_MAIN ?? 'dist',
      eventsInstance: EVENTS_INSTANCE,
      webhooksInstance: WEBHOOKS_INSTANCE,
      durableFloor: FLOOR,
    },
    ...results,
  };
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  const out = path.join(ROOT, '.data/bench/events.json');
  writeFileSync(out, JSON.stringify(report, null, 2));
  const rows = [];
  const { latency: l, backlog: b, sse: s } = results;
  if (l) {
    rows.push([
      `Webhook lag p50 / p99 / max at ${l.rate}/s over ${l.vaults} vaults (write answered → received)`,
      `${l.platform.fromAnswer.p50} / ${l.platform.fromAnswer.p99} / ${l.platform.fromAnswer.max} ms`,
      `${l.reference.fromAnswer.p50} / ${l.reference.fromAnswer.p99} / ${l.reference.fromAnswer.max} ms`,
      `p99 <= 2x the reference's: ${met(l.platform.fromAnswer.p99, 2 * l.reference.fromAnswer.p99)} (${r1(l.platform.fromAnswer.p99 / l.reference.fromAnswer.p99)}x)`,
    ]);
    if (l.floor) {
      rows.push([
        "… the reference's durable floor (records read and a delivery row stored before each POST), p50 / p99 / max",
        '',
        `${l.floor.fromAnswer.p50} / ${l.floor.fromAnswer.p99} / ${l.floor.fromAnswer.max} ms (${l.floor.delivered} received; ${r1(l.floor.fromAnswer.p99 / l.reference.fromAnswer.p99)}x the reference's p99, the platform ${r1(l.platform.fromAnswer.p99 / l.floor.fromAnswer.p99)}x the floor's)`,
        '',
      ]);
    }
    const bd = l.platformBreakdown;
    rows.push([
      '… event → published (relay) / → delivery row stored / row stored → delivered, p50 / p99',
      `${bd.eventToPublished.p50} / ${bd.eventToPublished.p99} ms; ${bd.eventToStored.p50} / ${bd.eventToStored.p99} ms; ${bd.storedToDelivered.p50} / ${bd.storedToDelivered.p99} ms`,
      '',
      '',
    ]);
    const c = l.cpuPerEventMicros;
    const sum = (row) =>
      `${Object.entries(row)
        .filter(([n]) => n !== 'total')
        .map(([n, us]) => `${n} ${us}`)
        .join(' + ')} = ${row.total} µs`;
    rows.push([
      `CPU per event (write answered and pushed out; NATS server, used by both: ${c.shared['nats-server'] ?? 'n/a'} µs)`,
      sum(c.platform),
      c.floor ? `${sum(c.reference)}; durable floor ${sum(c.floor)}` : sum(c.reference),
      '',
    ]);
    const cfRef = l.changeFeed.reference;
    rows.push([
      `Change-feed lag p50 / p99 / max at ${l.rate}/s, one stream per vault (write answered → received; reference: its SSE broadcaster)`,
      `${l.changeFeed.fromAnswer.p50} / ${l.changeFeed.fromAnswer.p99} / ${l.changeFeed.fromAnswer.max} ms`,
      cfRef ? `${cfRef.fromAnswer.p50} / ${cfRef.fromAnswer.p99} / ${cfRef.fromAnswer.max} ms (${cfRef.received} received)` : '',
      `p99 <= 100 ms: ${met(l.changeFeed.fromAnswer.p99, 100)}`,
    ]);
    const st = l.changeFeed.stages;
    rows.push([
      "… from the event's time: answered / published (relay) / feed row written (bucket bound) / received, p50 / p99",
      `${st.eventToAnswer.p50} / ${st.eventToAnswer.p99} ms; ${bd.eventToPublished.p50} / ${bd.eventToPublished.p99} ms; ${st.eventToWritten ? `≤ ${st.eventToWritten.p50} / ≤ ${st.eventToWritten.p99} ms` : 'n/a'}; ${st.eventToReceived.p50} / ${st.eventToReceived.p99} ms`,
      '',
      '',
    ]);
    rows.push([
      'Webhooks received / writes answered',
      `${l.platform.delivered} / ${l.writesOk} (dup ${l.platform.duplicates}, rejected ${l.platform.rejected})`,
      `${l.reference.delivered} / ${l.writesOk}`,
      '',
    ]);
  }
  if (b) {
    rows.push([
      `Backlog (${b.backlog} events, produced at ${b.produce.writesPerSecond} writes/s, outage ${b.outageSeconds} s)`,
      `${b.platform.delivered} delivered`,
      `${b.reference.delivered} delivered`,
      '',
    ]);
    rows.push([
      'Receiver back → first delivery',
      `${b.platform.firstDeliveryAfterMs} ms`,
      `${b.reference.firstDeliveryAfterMs} ms`,
      '',
    ]);
    rows.push([
      'Drain, first to last delivery',
      `${b.platform.deliveriesPerSecond} deliveries/s (${b.platform.drainSeconds} s)`,
      `${b.reference.deliveriesPerSecond} deliveries/s (${b.reference.drainSeconds} s)`,
      `>= 1,000/s: ${b.platform.deliveriesPerSecond >= 1000 ? 'met' : 'not met'}`,
    ]);
  }
  if (s) {
    const sp = s.platform;
    const sr = s.reference;
    rows.push([
      `SSE lag p50 / p99 / max, ${sp.clients} clients on ${s.vaults} vaults, ${s.rate} writes/s`,
      `${sp.lag.p50} / ${sp.lag.p99} / ${sp.lag.max} ms`,
      `${sr.lag.p50} / ${sr.lag.p99} / ${sr.lag.max} ms`,
      `p99 < 250 ms: ${sp.lag.p99 < 250 ? 'met' : 'not met'}`,
    ]);
    rows.push([
      'SSE messages received / expected',
      `${sp.receivedMessages} / ${sp.expectedMessages}`,
      `${sr.receivedMessages} / ${sr.expectedMessages}`,
      '',
    ]);
    rows.push([
      'SSE CPU (% of a core) and RSS before → peak (MiB)',
      Object.entries(sp.cpuPercent)
        .map(([a, c]) => `${a} ${c} %, ${sp.rssMiB[a].before} → ${sp.rssMiB[a].peak}`)
        .join('; '),
      Object.entries(sr.cpuPercent)
        .map(([a, c]) => `${a} ${c} %, ${sr.rssMiB[a].before} → ${sr.rssMiB[a].peak}`)
        .join('; '),
      '',
    ]);
  }
  console.log('');
  console.log(
    `Events out (commit ${report.commit}, load ${loadAtStart.join(' ')} at start, ${report.machine.loadAtEnd.join(' ')} at end, ${report.machine.cpus} CPUs)`,
  );
  console.log('| Measure | Platform (through the gateway) | Reference (straight from JetStream) | Goal |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log(`written to ${path.relative(ROOT, out)}`);
}

runBench(main, { cleanups, log });
