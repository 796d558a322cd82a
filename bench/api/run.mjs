#!/usr/bin/env node
/**
 * API request cost benchmark: records-service routes against a hand-written reference
 * server (bench/api/reference.mjs: node:http, jose, pg) doing the same work on the same
 * database with the same token, and fixed-rate latency through the gateway.
 *
 * 1. direct: for each route, alternating rounds (records-service, reference, then the other
 *    order) of BENCH_DURATION s with autocannon at BENCH_CONNECTIONS connections; req/s,
 *    the ratio records-service/reference, and CPU per request of the server process and of
 *    the PostgreSQL backends of the database (utime + stime from /proc/<pid>/stat).
 *    Routes: GET record, GET vault, POST record, PUT record, GET log page 1 and last page
 *    (10,000 entries), search list (200 records).
 * 2. flatness: GET log page 1 in a 12-entry vault and search list in a 10-record vault
 *    (records-service, same rounds); ratio large/small.
 * 3. through the gateway, open loop: GET record at BENCH_READ_RATES req/s and POST record
 *    into one vault at BENCH_CREATE_RATES req/s for BENCH_RATE_SECONDS each, requests sent
 *    at fixed intervals whatever the answers (no bursts, no coordinated omission: latency
 *    counts from each request's scheduled send time); p50/p90/p99/max.
 *
 * Self-contained: builds the four apps (nx cache), starts them with scripts/platform.cjs on
 * free ports with throw-away databases on the server of DATABASE_URL and NATS from NATS_URL
 * (the outbox relay and activity-log writer off in records-service: the API alone is
 * measured), signs in through developer-service with a bootstrap tenant, seeds the vaults
 * through the API and the log entries with SQL, and drops everything at the end.
 *
 * Variables: BENCH_DURATION (s per round, 4), BENCH_ROUNDS (3), BENCH_CONNECTIONS (10),
 * BENCH_RATE_SECONDS (10), BENCH_READ_RATES (500,250; comma-separated), BENCH_CREATE_RATES (200,100),
 * BENCH_ROUTES (comma-separated route names, all by default), BENCH_SKIP_BUILD=1,
 * BENCH_COMMIT (the commit the build was made from, when not this checkout), DATABASE_URL, NATS_URL. Writes .data/bench/api.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Pool as HttpPool, request } from 'undici';
import {
  benchPlans as shippedPlans,
  buildApps,
  cpuMsOf,
  PG_SERVER,
  platform,
  ROOT,
  runBench,
  signIn,
  startBenchPlatform,
} from '../bench-platform.mjs';

const require = createRequire(import.meta.url);
const pg = require('pg');
const HERE = path.dirname(fileURLToPath(import.meta.url));

const DURATION = Number(process.env.BENCH_DURATION ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10);
const READ_RATES = (process.env.BENCH_READ_RATES ?? '500,250').split(',').map(Number).filter(Boolean);
const CREATE_RATES = (process.env.BENCH_CREATE_RATES ?? '200,100').split(',').map(Number).filter(Boolean);
const ONLY = process.env.BENCH_ROUTES?.split(',').map((s) => s.trim());
const LOG_LARGE = 10_000;
const LOG_SMALL = 12;
const SEARCH_LARGE = 200;
const SEARCH_SMALL = 10;
const RECORD_BODY = {
  name: 'Bench passport',
  description: 'Issued 2024, renews 2034',
  recordTypeName: 'identityDocs',
  recordSubtypeName: 'passport',
  uniqueReference: 'P1234567',
  storageLocation: 'Home safe',
};

const log = (msg) => console.log(`[bench:api] ${msg}`);
const cleanups = [];
const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r2 = (x) => Math.round(x * 100) / 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  buildApps(log);
  const work = mkdtempSync(path.join(tmpdir(), 'bench-api-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  const plans = benchPlans();
  const p = await startPlatform(work, plans);
  const recordsDb = platform.databaseUrl(PG_SERVER, p.databases['records-service']);
  const db = new pg.Pool({ connectionString: recordsDb, max: 4 });
  cleanups.unshift(() => db.end());
  const token = await signIn(p);
  const direct = `http://127.0.0.1:${p.ports['records-service']}`;
  const seed = await seedData(db, direct, token);
  const ref = await startReference(recordsDb, p, plans);
  const routes = routeTable(seed, token);
  const pids = { 'records-service': p.children.get('records-service').pid, reference: ref.pid };
  const servers = { 'records-service': direct, reference: ref.url };
  await sanityCheck(routes, servers);
  await warmUp(routes, servers);
  const directRuns = await measureDirect(routes, servers, pids, db, p.databases['records-service']);
  const gatewayRuns = await measureGateway(p, seed, token);
  writeReport({ routes, directRuns, gatewayRuns, seed, commit: measuredCommit() });
}

/** The commit measured (BENCH_COMMIT names it for a build made elsewhere), marked when apps or libs differ from it. */
function measuredCommit() {
  if (process.env.BENCH_COMMIT) return process.env.BENCH_COMMIT;
  const git = (...args) => spawnSync('git', args, { cwd: ROOT }).stdout?.toString().trim() ?? '';
  const head = git('rev-parse', '--short', 'HEAD') || 'unknown';
  return git('status', '--porcelain', '--', 'apps', 'libs') ? `${head} + uncommitted changes` : head;
}

/** The shipped plans, the default one with room for every vault and record the run creates. */
function benchPlans() {
  return shippedPlans((features) => {
    features['account.maxOwnedVaults'] = '50';
    features['vault.maxVaultRecords'] = '100000000';
  });
}

function startPlatform(work, plans) {
  return startBenchPlatform({
    name: 'api',
    work,
    plans,
    cleanups,
    log,
    // the API alone: no relay or log writer in the measured process
    env: { TOKEN_TTL_SECONDS: '3600', ACTIVITY_LOG_RELAY: 'off', ACTIVITY_LOG_WRITER: 'off' },
  });
}

async function call(base, method, route, token, body, host) {
  const res = await request(`${base}${route}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(host ? { host } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.statusCode, body: json, bytes: Buffer.byteLength(text) };
}

/**
 * Vaults through the API: `search` (200 records), `log` (10,000 log entries), `small`
 * (10 records, 12 log entries), `creates` (the POST target), `record` (the record of GET
 * and PUT, with two file rows). Log entries are inserted with SQL as the writer inserts
 * them, with the per-vault counts when the schema has them.
 */
async function seedData(db, base, token) {
  log('seeding');
  const vault = async (name) => {
    const r = await call(base, 'POST', '/api/v1/vault', token, { name });
    if (r.status !== 201) throw new Error(`vault create answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body.id;
  };
  const ids = {};
  for (const name of ['search', 'log', 'small', 'creates', 'record']) ids[name] = await vault(`Bench ${name}`);
  const records = async (vaultId, n) => {
    const out = [];
    for (let i = 0; i < n; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, n - i) }, (_, j) =>
          call(base, 'POST', `/api/v1/vault/vault-id/${vaultId}/records`, token, { ...RECORD_BODY, name: `Record ${i + j}` }),
        ),
      );
      for (const r of batch) {
        if (r.status !== 200) throw new Error(`record create answered ${r.status}: ${JSON.stringify(r.body)}`);
        out.push(r.body.id);
      }
    }
    return out;
  };
  await records(ids.search, SEARCH_LARGE);
  await records(ids.small, SEARCH_SMALL);
  const [recordId] = await records(ids.record, 1);
  const {
    rows: [owner],
  } = await db.query('SELECT open_id, tenant_id FROM vault_memberships WHERE vault_id = $1', [ids.record]);
  for (const name of ['scan-front.pdf', 'scan-back.pdf']) {
    await db.query(
      `INSERT INTO record_files (record_id, tenant_id, file_name, correlation_id, file_type, caption, upload_title, file_extension,
         media_type, storage_key, size, sha256, uploader, uploader_open_id)
       VALUES ($1, $2, $3, $4, 'document', 'Passport', 'Passport scans', 'pdf', 'application/pdf', $5, 123456, $6, 'bench', $7)`,
      [recordId, owner.tenant_id, name, randomUUID(), `bench/${randomUUID()}`, 'a'.repeat(64), owner.open_id],
    );
  }
  await insertLogEntries(db, ids.log, LOG_LARGE, owner);
  await insertLogEntries(db, ids.small, LOG_SMALL, owner);
  const {
    rows: [counts],
  } = await db.query(`SELECT to_regclass('activity_log_counts') IS NOT NULL AS present`);
  if (counts.present) {
    await db.query(
      `INSERT INTO activity_log_counts (vault_id, entity, event_type, total)
       SELECT vault_id, entity, event_type, count(*) FROM activity_log_entries WHERE vault_id = ANY($1::uuid[]) GROUP BY 1, 2, 3
       ON CONFLICT (vault_id, entity, event_type) DO UPDATE SET total = EXCLUDED.total`,
      [[ids.log, ids.small]],
    );
  }
  await db.query('VACUUM ANALYZE');
  log(
    `seeded: ${SEARCH_LARGE} + ${SEARCH_SMALL} records, ${LOG_LARGE} + ${LOG_SMALL} log entries (counts table: ${counts.present})`,
  );
  return { vaults: ids, recordId, logCountsTable: counts.present };
}

/** `n` record-created entries of a vault, a second apart, as the writer stores them. */
async function insertLogEntries(db, vaultId, n, owner) {
  await db.query(
    `INSERT INTO activity_log_entries (event_id, vault_id, tenant_id, subject, entity, event_type, action, actor_open_id,
       actor_name, vault_name, record_id, record_name, file_name, details, occurred_at)
     SELECT gen_random_uuid(), $1, $2, 'vault.record.created.v1', 'Record', 'Create', 'created', $3, 'bench@vault.local',
       'Bench log', gen_random_uuid(), 'Record ' || i, NULL, '{}'::jsonb, now() - (($4 - i) * interval '1 second')
     FROM generate_series(1, $4) AS i`,
    [vaultId, owner.tenant_id, owner.open_id, n],
  );
}

async function startReference(databaseUrl, p, plans) {
  const port = await platform.freePort();
  const child = spawn(process.execPath, [path.join(HERE, 'reference.mjs')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      AUTH_JWKS_URL: `http://127.0.0.1:${p.ports['developer-service']}/api/v1/.well-known/jwks.json`,
      AUTH_ISSUER: p.issuer,
      AUTH_AUDIENCE: 'vault-api',
      BENCH_PLANS_JSON: JSON.stringify(plans),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  cleanups.unshift(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
  });
  const url = `http://127.0.0.1:${port}`;
  await platform.waitForReady(`${url}/health/ready`, 30000, () => child.exitCode === null);
  log(`reference ready (${url})`);
  return { pid: child.pid, url };
}

/** The measured routes; `compare: false` ones run on records-service only (flatness). */
function routeTable({ vaults, recordId }, token) {
  const v = (id) => `/api/v1/vault/vault-id/${id}`;
  const lastPage = Math.ceil(LOG_LARGE / 20);
  const body = JSON.stringify(RECORD_BODY);
  const put = JSON.stringify({ ...RECORD_BODY, name: 'Bench passport (renewed)' });
  const routes = [
    { name: 'GET record', method: 'GET', path: `${v(vaults.record)}/records/record-id/${recordId}` },
    { name: 'GET vault', method: 'GET', path: v(vaults.search) },
    { name: 'POST record', method: 'POST', path: `${v(vaults.creates)}/records`, body },
    { name: 'PUT record', method: 'PUT', path: `${v(vaults.record)}/records/record-id/${recordId}`, body: put },
    { name: 'GET log page 1 (10k)', method: 'GET', path: `${v(vaults.log)}/log?page=1&pageSize=20` },
    { name: `GET log last page (10k)`, method: 'GET', path: `${v(vaults.log)}/log?page=${lastPage}&pageSize=20` },
    { name: 'search (200 records)', method: 'GET', path: `${v(vaults.search)}/records` },
    { name: 'GET log page 1 (12)', method: 'GET', path: `${v(vaults.small)}/log?page=1&pageSize=20`, compare: false },
    { name: 'search (10 records)', method: 'GET', path: `${v(vaults.small)}/records`, compare: false },
    // a paged search reads a page whatever the vault holds: the flat-cost way to list a large vault
    {
      name: 'search page 1 (200 records)',
      method: 'GET',
      path: `${v(vaults.search)}/records?page=1&pageSize=10`,
      compare: false,
    },
    { name: 'search page 1 (10 records)', method: 'GET', path: `${v(vaults.small)}/records?page=1&pageSize=10`, compare: false },
  ];
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return routes
    .filter((r) => !ONLY || ONLY.includes(r.name) || r.compare === false)
    .map((r) => ({ compare: true, ...r, headers }));
}

/** Every route answers 2xx on both servers, with bodies of the same size (same fields). */
async function sanityCheck(routes, servers) {
  for (const route of routes) {
    const sizes = {};
    for (const [name, base] of Object.entries(servers)) {
      if (name === 'reference' && !route.compare) continue;
      const token = route.headers.authorization.slice(7);
      const r = await call(base, route.method, route.path, token, route.body ? JSON.parse(route.body) : undefined);
      if (r.status < 200 || r.status >= 300)
        throw new Error(`${name} ${route.name}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      sizes[name] = r.bytes;
      if (route.path.includes('/log')) sizes[`${name} totalItems`] = r.body.page?.totalItems;
      if (Array.isArray(r.body)) sizes[`${name} items`] = r.body.length;
    }
    route.responseBytes = sizes;
    log(`${route.name}: ${JSON.stringify(sizes)}`);
  }
}

async function warmUp(routes, servers) {
  log('warming up');
  for (const route of routes) {
    for (const [name, base] of Object.entries(servers)) {
      if (name === 'reference' && !route.compare) continue;
      await saturate(base, route, 1);
    }
  }
}

/** One autocannon run at CONNECTIONS connections. */
function saturate(base, route, duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${base}${route.path}`,
        method: route.method,
        headers: route.headers,
        body: route.body,
        connections: CONNECTIONS,
        duration,
        pipelining: 1,
      },
      (err, result) => {
        if (err) return reject(err);
        resolve({
          rps: result.requests.total / duration,
          requests: result.requests.total,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
        });
      },
    );
  });
}

/** CPU ms (user + system) so far of each pid; missing pids are left out. */
function cpuOf(pids) {
  const out = {};
  for (const pid of pids) {
    const ms = cpuMsOf(pid);
    if (ms !== undefined) out[pid] = ms;
  }
  return out;
}

/** PostgreSQL backends connected to the records database (both servers' pools). */
async function backendPids(db, database) {
  const { rows } = await db.query('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
  return rows.map((r) => r.pid);
}

async function measureDirect(routes, servers, pids, db, database) {
  log(`direct: ${ROUNDS} alternating rounds of ${DURATION} s per route and server, ${CONNECTIONS} connections`);
  const runs = Object.fromEntries(routes.map((r) => [r.name, { 'records-service': [], reference: [] }]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const route of routes) {
      const order = round % 2 ? ['records-service', 'reference'] : ['reference', 'records-service'];
      for (const name of order) {
        if (name === 'reference' && !route.compare) continue;
        const backendsBefore = await backendPids(db, database);
        const before = cpuOf([pids[name], ...backendsBefore]);
        const r = await saturate(servers[name], route, DURATION);
        const backendsAfter = await backendPids(db, database);
        const after = cpuOf([pids[name], ...new Set([...backendsBefore, ...backendsAfter])]);
        r.cpuMicrosPerRequest = Math.round(((after[pids[name]] - before[pids[name]]) * 1000) / r.requests);
        let dbMs = 0;
        for (const pid of Object.keys(after)) if (Number(pid) !== pids[name]) dbMs += after[pid] - (before[pid] ?? 0);
        r.dbCpuMicrosPerRequest = Math.round((dbMs * 1000) / r.requests);
        r.loadAverage1m = r2(loadavg()[0]);
        runs[route.name][name].push(r);
        log(
          `round ${round} ${route.name.padEnd(24)} ${name.padEnd(15)} ${r.rps.toFixed(0).padStart(5)} req/s  ` +
            `cpu/req ${r.cpuMicrosPerRequest} µs  db cpu/req ${r.dbCpuMicrosPerRequest} µs  non-2xx ${r.non2xx}  errors ${r.errors}  load ${r.loadAverage1m}`,
        );
        if (r.non2xx || r.errors) throw new Error(`${name} ${route.name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
      }
    }
  }
  return runs;
}

/**
 * Open loop through the gateway: request i is due at start + i/rate and is sent then,
 * whatever happened to the earlier ones (undici pool, enough connections that none waits
 * for a free one); its latency runs from that due time to the end of its answer.
 */
async function openLoop(p, route, rate, seconds) {
  const pool = new HttpPool(p.gatewayUrl, {
    connections: 512,
    pipelining: 1,
    connect: { rejectUnauthorized: false, servername: 'records-api.localhost' },
  });
  const latencies = [];
  const statuses = {};
  let errors = 0;
  const inflight = new Set();
  const total = Math.round(rate * seconds);
  const start = performance.now() + 20;
  let sent = 0;
  let lateSends = 0;
  const send = (due) => {
    const job = pool
      .request({
        path: route.path,
        method: route.method,
        headers: { ...route.headers, host: 'records-api.localhost' },
        body: route.body,
      })
      .then(async (res) => {
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode >= 200 && res.statusCode < 300) latencies.push(performance.now() - due);
      })
      .catch(() => errors++)
      .finally(() => inflight.delete(job));
    inflight.add(job);
  };
  while (sent < total) {
    const now = performance.now();
    while (sent < total && start + (sent * 1000) / rate <= now) {
      const due = start + (sent * 1000) / rate;
      if (now - due > 5) lateSends++;
      send(due);
      sent++;
    }
    const next = start + (sent * 1000) / rate - performance.now();
    await sleep(Math.max(0, Math.min(next, 2)));
  }
  await Promise.race([Promise.all(inflight), sleep(30000)]);
  await pool.close().catch(() => undefined);
  latencies.sort((a, b) => a - b);
  const pct = (q) => r2(latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(q * latencies.length) - 1))] ?? NaN);
  return {
    rate,
    seconds,
    sent,
    ok: latencies.length,
    statuses,
    errors,
    lateSendsOver5ms: lateSends,
    p50: pct(0.5),
    p90: pct(0.9),
    p99: pct(0.99),
    max: r2(latencies.at(-1) ?? NaN),
    loadAverage1m: r2(loadavg()[0]),
  };
}

async function measureGateway(p, { vaults, recordId }, token) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const read = { path: `/api/v1/vault/vault-id/${vaults.record}/records/record-id/${recordId}`, method: 'GET', headers };
  const create = {
    path: `/api/v1/vault/vault-id/${vaults.creates}/records`,
    method: 'POST',
    headers,
    body: JSON.stringify(RECORD_BODY),
  };
  const out = { read: [], create: [] };
  // a short warm-up of the gateway's upstream connections
  await openLoop(p, read, 100, 2);
  for (const rate of READ_RATES) {
    log(`through the gateway: GET record at ${rate} req/s for ${RATE_SECONDS} s (open loop)`);
    const r = await openLoop(p, read, rate, RATE_SECONDS);
    out.read.push(r);
    log(`  p50 ${r.p50} ms  p90 ${r.p90} ms  p99 ${r.p99} ms  max ${r.max} ms  ${JSON.stringify(r.statuses)} errors ${r.errors}`);
  }
  for (const rate of CREATE_RATES) {
    log(`through the gateway: POST record into one vault at ${rate} req/s for ${RATE_SECONDS} s (open loop)`);
    const r = await openLoop(p, create, rate, RATE_SECONDS);
    out.create.push(r);
    log(`  p50 ${r.p50} ms  p90 ${r.p90} ms  p99 ${r.p99} ms  max ${r.max} ms  ${JSON.stringify(r.statuses)} errors ${r.errors}`);
  }
  return out;
}

function writeReport({ routes, directRuns, gatewayRuns, seed, commit }) {
  const direct = {};
  for (const route of routes) {
    const runs = directRuns[route.name];
    const s = runs['records-service'];
    const f = runs.reference;
    direct[route.name] = {
      recordsService: {
        rps: Math.round(median(s.map((r) => r.rps))),
        cpuMicrosPerRequest: median(s.map((r) => r.cpuMicrosPerRequest)),
        dbCpuMicrosPerRequest: median(s.map((r) => r.dbCpuMicrosPerRequest)),
      },
      ...(route.compare
        ? {
            reference: {
              rps: Math.round(median(f.map((r) => r.rps))),
              cpuMicrosPerRequest: median(f.map((r) => r.cpuMicrosPerRequest)),
              dbCpuMicrosPerRequest: median(f.map((r) => r.dbCpuMicrosPerRequest)),
            },
            ratio: r2(median(s.map((r) => r.rps)) / median(f.map((r) => r.rps))),
            medianPairedRatio: r2(median(s.map((r, i) => r.rps / f[i].rps))),
            cpuRatio: r2(median(f.map((r) => r.cpuMicrosPerRequest)) / median(s.map((r) => r.cpuMicrosPerRequest))),
          }
        : {}),
      responseBytes: route.responseBytes,
    };
  }
  const rps = (name) => direct[name]?.recordsService.rps;
  const flat = (large, small) => (rps(large) && rps(small) ? r2(rps(small) / rps(large)) : undefined);
  // CPU per request (service + database) is steadier than req/s on a shared machine
  const cpu = (name) =>
    direct[name]
      ? direct[name].recordsService.cpuMicrosPerRequest + direct[name].recordsService.dbCpuMicrosPerRequest
      : undefined;
  const flatCpu = (large, small) => (cpu(large) && cpu(small) ? r2(cpu(large) / cpu(small)) : undefined);
  const flatness = {
    'log page 1, 12 vs 10k entries (req/s small / large)': flat('GET log page 1 (10k)', 'GET log page 1 (12)'),
    'log last page of 10k vs page 1 of 12 (req/s small / large)': flat('GET log last page (10k)', 'GET log page 1 (12)'),
    'search, 10 vs 200 records (req/s small / large)': flat('search (200 records)', 'search (10 records)'),
    'log page 1, 12 vs 10k entries (CPU/req large / small)': flatCpu('GET log page 1 (10k)', 'GET log page 1 (12)'),
    'log last page of 10k vs page 1 of 12 (CPU/req large / small)': flatCpu('GET log last page (10k)', 'GET log page 1 (12)'),
    'search, 10 vs 200 records (CPU/req large / small)': flatCpu('search (200 records)', 'search (10 records)'),
    'search page 1 of 10, 10 vs 200 records (req/s small / large)': flat(
      'search page 1 (200 records)',
      'search page 1 (10 records)',
    ),
    'search page 1 of 10, 10 vs 200 records (CPU/req large / small)': flatCpu(
      'search page 1 (200 records)',
      'search page 1 (10 records)',
    ),
  };
  const goals = {
    throughputAtLeastHalfOfReference: Object.fromEntries(
      Object.entries(direct)
        .filter(([, d]) => d.ratio !== undefined)
        .map(([n, d]) => [n, d.ratio >= 0.5]),
    ),
    readP99AtMost25msAt500: gatewayRuns.read.filter((r) => r.rate === 500).map((r) => r.p99 <= 25),
    createP99AtMost50msAt200: gatewayRuns.create.filter((r) => r.rate === 200).map((r) => r.p99 <= 50),
    flatWithin1_5x: Object.fromEntries(Object.entries(flatness).map(([n, v]) => [n, v !== undefined && v <= 1.5])),
  };
  const report = {
    date: new Date().toISOString(),
    commit,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      loadAverage: loadavg().map(r2),
    },
    settings: {
      durationSeconds: DURATION,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      rateSeconds: RATE_SECONDS,
      readRates: READ_RATES,
      createRates: CREATE_RATES,
    },
    seed: {
      logCountsTable: seed.logCountsTable,
      logEntries: [LOG_LARGE, LOG_SMALL],
      searchRecords: [SEARCH_LARGE, SEARCH_SMALL],
    },
    direct,
    flatness,
    gateway: gatewayRuns,
    goals,
    runs: directRuns,
  };
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  const out = path.join(ROOT, '.data/bench/api.json');
  writeFileSync(out, JSON.stringify(report, null, 2));

  console.log('');
  console.log(
    `records-service vs reference, direct HTTP, ${CONNECTIONS} connections, medians of ${ROUNDS} rounds of ${DURATION} s (commit ${commit})`,
  );
  console.log(
    '| Route | records-service req/s | reference req/s | ratio (paired) | CPU/req service vs ref (µs) | DB CPU/req service vs ref (µs) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [name, d] of Object.entries(direct)) {
    const s = d.recordsService;
    const f = d.reference;
    console.log(
      `| ${name} | ${s.rps} | ${f ? f.rps : '–'} | ${d.ratio ?? '–'}${f ? ` (${d.medianPairedRatio})` : ''}${d.ratio !== undefined && d.ratio < 0.5 ? ' below 0.5' : ''} | ` +
        `${s.cpuMicrosPerRequest} vs ${f ? f.cpuMicrosPerRequest : '–'} | ${s.dbCpuMicrosPerRequest} vs ${f ? f.dbCpuMicrosPerRequest : '–'} |`,
    );
  }
  console.log('');
  for (const [name, v] of Object.entries(flatness)) console.log(`flatness ${name}: ${v ?? '–'} (goal at most 1.5)`);
  for (const r of gatewayRuns.read)
    console.log(
      `gateway GET record at ${r.rate}/s: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms (goal p99 at most 25 ms at 500/s)`,
    );
  for (const r of gatewayRuns.create)
    console.log(
      `gateway POST record at ${r.rate}/s into one vault: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms (goal p99 at most 50 ms at 200/s)`,
    );
  console.log(`written to ${path.relative(ROOT, out)}`);
}

runBench(main, { cleanups, log, settleMs: 300 });
