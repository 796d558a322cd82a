#!/usr/bin/env node
/**
 * API request cost benchmark: records-service routes against a hand-written reference
 * server (bench/api/reference.mjs: node:http, jose, pg) doing the same work on the same
 * database with the same token, in one run, alternating.
 *
 * 1. direct: for each route, alternating rounds (records-service, reference, then the other
 *    order) of BENCH_DURATION s with autocannon at BENCH_CONNECTIONS connections; req/s,
 *    the ratio records-service/reference, and CPU per request of the server process and of
 *    the PostgreSQL backends of the database (utime + stime from /proc/<pid>/stat).
 *    Routes: GET record, GET vault, POST record, PUT record, GET log page 1 and last page
 *    (10,000 entries), search list (200 records).
 * 2. flatness: GET log page 1 in a 12-entry vault and search list in a 10-record vault
 *    (records-service, same rounds); ratio large/small.
 * 3. open loop, the latency goal: GET record at BENCH_READ_RATES req/s and POST record into
 *    one vault at BENCH_CREATE_RATES req/s, BENCH_RATE_SECONDS each, against records-service
 *    and the reference alternating (BENCH_OPEN_ROUNDS rounds, the order swapped each
 *    round), both directly (plain HTTP on the server's port) and each behind its own
 *    gateway process (the same build; the second gateway's RECORDS_SERVICE_URL names the
 *    reference). Requests go at fixed intervals whatever the answers (no coordinated
 *    omission: latency counts from each request's scheduled send time); p50/p90/p99/max
 *    of all rounds of a server, the ratio of those p99s records-service/reference, and the
 *    goal's ratio: the median over the round pairs of records-service's round p99 over the
 *    reference's in the same pair (a round of either server is now and then 3–10x slower
 *    than its others on a shared machine: the p99 of all rounds says which server drew it).
 * 4. SQL per request: a second records-service and a second reference, each reaching
 *    PostgreSQL through its own counting TCP proxy (frontend messages: Parse, Bind,
 *    Execute, simple Query, Sync), answer BENCH_SQL_REQUESTS sequential requests of each
 *    compared route; statements (Execute + Query) and round trips (Sync + Query, each a
 *    wait for ReadyForQuery) per request. Measured apart, so the proxies cost nothing in
 *    phases 1 to 3.
 *
 * A/B: with BENCH_BASELINE=<commit>, records-service is also built from that commit (in a
 * temporary git worktree, this checkout's node_modules) and started beside this build on
 * the same database: it joins the direct rounds, the direct open loop and the SQL counts
 * as `baseline`, and the report gives this build against it. BENCH_CPU_PROF=<dir> starts
 * the measured records-service with --cpu-prof (profiles written to <dir> at its exit), and
 * every other records-service process of the run too, each in <dir>/<its name>, and the
 * reference in <dir>/reference.
 *
 * Self-contained: builds the four apps (nx cache), starts them with scripts/platform.cjs on
 * free ports with throw-away databases on the server of DATABASE_URL and NATS from NATS_URL
 * (the outbox relay and activity-log writer off in records-service: the API alone is
 * measured), signs in through developer-service with a bootstrap tenant, seeds the vaults
 * through the API and the log entries with SQL, and drops everything at the end.
 *
 * Variables: BENCH_DURATION (s per round, 4), BENCH_ROUNDS (3), BENCH_CONNECTIONS (10),
 * BENCH_WARMUP (s of unmeasured load per route and server before the rounds, 5),
 * BENCH_RATE_SECONDS (10), BENCH_OPEN_ROUNDS (5), BENCH_READ_RATES (500; comma-separated),
 * BENCH_CREATE_RATES (200), BENCH_SQL_REQUESTS (50), BENCH_ROUTES (comma-separated route
 * names, all by default), BENCH_PHASES (direct,open,sql), BENCH_SKIP_BUILD=1, BENCH_BASELINE,
 * BENCH_BASELINE_MAIN (a main.js already built from BENCH_BASELINE), BENCH_CPU_PROF,
 * BENCH_COMMIT (the commit the build was made from, when not this
 * checkout), DATABASE_URL, NATS_URL. Writes .data/bench/api.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, createServer } from 'node:net';
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
  cpuMsOfEach,
  cpuProfArgs,
  databaseBackendPids,
  nodeArgsOf,
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
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10);
const OPEN_ROUNDS = Number(process.env.BENCH_OPEN_ROUNDS ?? 5);
const READ_RATES = (process.env.BENCH_READ_RATES ?? '500').split(',').map(Number).filter(Boolean);
const CREATE_RATES = (process.env.BENCH_CREATE_RATES ?? '200').split(',').map(Number).filter(Boolean);
const SQL_REQUESTS = Number(process.env.BENCH_SQL_REQUESTS ?? 50);
const ONLY = process.env.BENCH_ROUTES?.split(',').map((s) => s.trim());
const PHASES = new Set((process.env.BENCH_PHASES ?? 'direct,open,sql').split(',').map((s) => s.trim()));
const BASELINE = process.env.BENCH_BASELINE?.trim() || undefined;
const CPU_PROF = process.env.BENCH_CPU_PROF?.trim() || undefined;
/** Node options of the measured records-service (BENCH_NODE_ARGS) and of the baseline (BENCH_BASELINE_NODE_ARGS). */
const NODE_ARGS = {
  records: nodeArgsOf(process.env.BENCH_NODE_ARGS),
  baseline: nodeArgsOf(process.env.BENCH_BASELINE_NODE_ARGS),
};
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
const RECORDS = 'records-service';
const REFERENCE = 'reference';
const BASE = 'baseline';

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
  const baselineMain = BASELINE ? (process.env.BENCH_BASELINE_MAIN ?? buildBaseline(BASELINE)) : undefined;
  const plans = benchPlans();
  const p = await startPlatform(work, plans);
  const recordsDb = platform.databaseUrl(PG_SERVER, p.databases['records-service']);
  const db = new pg.Pool({ connectionString: recordsDb, max: 4 });
  cleanups.unshift(() => db.end());
  const token = await signIn(p);
  const direct = `http://127.0.0.1:${p.ports['records-service']}`;
  const seed = await seedData(db, direct, token);
  const ref = await startReference(recordsDb, p, plans);
  const recordsEnv = environOf(p.children.get('records-service').pid);
  const servers = {
    [RECORDS]: {
      url: direct,
      pid: p.children.get('records-service').pid,
      metrics: `http://127.0.0.1:${recordsEnv.METRICS_PORT}/metrics`,
    },
    [REFERENCE]: ref,
  };
  if (baselineMain) servers[BASE] = await startRecordsService(BASE, baselineMain, recordsEnv, {});
  const routes = routeTable(seed, token);
  await sanityCheck(routes, servers);
  await warmUp(routes, servers);
  const directRuns = PHASES.has('direct') ? await measureDirect(routes, servers, db, p.databases['records-service']) : {};
  let openLoop = { read: [], create: [] };
  if (PHASES.has('open')) {
    const gateways = {
      [RECORDS]: { url: p.gatewayUrl, pid: p.children.get('gateway').pid },
      [REFERENCE]: await startGateway(environOf(p.children.get('gateway').pid), ref.url, work),
    };
    openLoop = await measureOpenLoop(servers, gateways, seed, token);
  }
  let sql = {};
  if (PHASES.has('sql')) {
    // the timed phases are reported even when the counted servers fail
    sql = await measureSql(routes, recordsDb, recordsEnv, baselineMain, p, plans).catch((err) => {
      log(`SQL counts failed: ${err.stack ?? err}`);
      return {};
    });
  }
  writeReport({ routes, directRuns, openLoop, sql, seed, commit: measuredCommit(), servers });
}

/** Builds records-service at `commit` in a temporary worktree (this checkout's node_modules); its main.js. */
function buildBaseline(commit) {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-api-baseline-'));
  log(`building records-service at ${commit} (baseline) in ${dir}`);
  const git = (...args) => spawnSync('git', args, { cwd: ROOT, stdio: 'inherit' });
  if (git('worktree', 'add', '--detach', dir, commit).status !== 0) throw new Error(`no worktree at ${commit}`);
  cleanups.push(async () => {
    git('worktree', 'remove', '--force', dir);
    rmSync(dir, { recursive: true, force: true });
  });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const r = spawnSync('npx', ['nx', 'run', 'records-service:build', '--skip-nx-cache'], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' },
  });
  if (r.status !== 0) throw new Error('baseline build failed');
  return path.join(dir, 'dist/apps/records-service/main.js');
}

/** The environment a running process was started with (/proc/<pid>/environ). */
function environOf(pid) {
  const env = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
    const i = entry.indexOf('=');
    if (i > 0) env[entry.slice(0, i)] = entry.slice(i + 1);
  }
  return env;
}

/** Spawns a node process, stopped at the end; resolves when `readyUrl` answers 200. */
async function startProcess(name, main, env, readyUrl, { cwd = ROOT, nodeArgs = [] } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, main], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const forward = (chunk) => {
    for (const line of chunk.toString().split('\n')) if (/ERROR|WARN|Error/.test(line)) console.log(`  [${name}] ${line}`);
  };
  child.stdout.on('data', forward);
  child.stderr.on('data', forward);
  const exited = new Promise((r) => child.once('exit', r));
  cleanups.unshift(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, sleep(10000).then(() => child.kill('SIGKILL'))]);
  });
  await platform.waitForReady(readyUrl, 90000, () => child.exitCode === null);
  return child;
}

/** Another records-service process (`main`) on the platform's environment, a port of its own and `env`. */
async function startRecordsService(name, main, recordsEnv, env) {
  const port = await platform.freePort();
  const metricsPort = await platform.freePort();
  const child = await startProcess(
    name,
    main,
    {
      ...recordsEnv,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      DB_MIGRATE_ON_START: 'false',
      ...env,
    },
    `http://127.0.0.1:${port}/health/ready`,
    {
      cwd: path.resolve(path.dirname(main), '../../..'),
      // profiled beside the measured one, each profile in a folder of its own
      nodeArgs: [...(NODE_ARGS[name] ?? []), ...cpuProfArgs(CPU_PROF, name)],
    },
  );
  log(`${name} ready (port ${port})`);
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, metrics: `http://127.0.0.1:${metricsPort}/metrics` };
}

/** A second gateway process of the same build, its records upstream at `recordsUrl`. */
async function startGateway(gatewayEnv, recordsUrl, work) {
  const https = await platform.freePort();
  const child = await startProcess(
    'gateway (reference)',
    path.join(ROOT, 'dist/apps/gateway/main.js'),
    {
      ...gatewayEnv,
      HTTPS_PORT: String(https),
      HTTP_PORT: String(await platform.freePort()),
      METRICS_PORT: String(await platform.freePort()),
      CERT_DIR: path.join(work, 'certs-reference-gateway'),
      RECORDS_SERVICE_URL: recordsUrl,
    },
    `https://127.0.0.1:${https}/health/ready`,
  );
  log(`gateway of the reference ready (port ${https}, records upstream ${recordsUrl})`);
  return { url: `https://127.0.0.1:${https}`, pid: child.pid };
}

/**
 * A TCP proxy to PostgreSQL that counts the frontend messages of every connection: Parse,
 * Bind, Execute, simple Query and Sync (the first message, startup or SSL request, has no
 * type byte). Answers are passed through untouched.
 */
async function countingProxy() {
  const target = new URL(PG_SERVER);
  const counts = { parse: 0, bind: 0, execute: 0, query: 0, sync: 0 };
  const TYPES = { P: 'parse', B: 'bind', E: 'execute', Q: 'query', S: 'sync' };
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 5432) });
    sockets.add(client).add(upstream);
    let started = false;
    let pending = Buffer.alloc(0);
    let skip = 0; // bytes of the current message body still to pass
    client.on('data', (chunk) => {
      upstream.write(chunk);
      let buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let i = 0;
      for (;;) {
        if (skip > 0) {
          const n = Math.min(skip, buf.length - i);
          skip -= n;
          i += n;
          if (skip > 0) break;
        }
        if (!started) {
          if (buf.length - i < 4) break;
          const len = buf.readInt32BE(i);
          const code = buf.length - i >= 8 ? buf.readInt32BE(i + 4) : -1;
          if (code === -1) break;
          // SSLRequest / GSSENCRequest are followed by another startup message
          if (code !== 80877103 && code !== 80877104) started = true;
          skip = len;
          continue;
        }
        if (buf.length - i < 5) break;
        const type = String.fromCharCode(buf[i]);
        if (TYPES[type]) counts[TYPES[type]]++;
        skip = 1 + buf.readInt32BE(i + 1);
      }
      pending = i < buf.length ? buf.subarray(i) : Buffer.alloc(0);
      buf = undefined;
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return { port: server.address().port, counts };
}

/** `databaseUrl` with its host and port replaced by the proxy's. */
const throughProxy = (databaseUrl, port) => {
  const u = new URL(databaseUrl);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.toString();
};

/**
 * Statements and round trips per request of every compared route: each server again,
 * behind its own counting proxy, answering SQL_REQUESTS sequential requests per route
 * (after a few unmeasured ones, so caches are warm as in the timed phases).
 */
async function measureSql(routes, recordsDb, recordsEnv, baselineMain, p, plans) {
  log(`SQL per request: ${SQL_REQUESTS} sequential requests per route and server, through counting proxies`);
  const counted = {};
  const proxies = {};
  for (const name of [RECORDS, REFERENCE, ...(baselineMain ? [BASE] : [])]) {
    proxies[name] = await countingProxy();
    const dbUrl = throughProxy(recordsDb, proxies[name].port);
    if (name === REFERENCE) counted[name] = await startReference(dbUrl, p, plans);
    else
      counted[name] = await startRecordsService(
        `${name} (counted)`,
        name === BASE ? baselineMain : path.join(ROOT, 'dist/apps/records-service/main.js'),
        recordsEnv,
        {
          DATABASE_URL: dbUrl,
        },
      );
  }
  const out = {};
  for (const route of routes.filter((r) => r.compare)) {
    out[route.name] = {};
    for (const name of Object.keys(counted)) {
      const send = () =>
        call(
          counted[name].url,
          route.method,
          route.path,
          route.headers.authorization.slice(7),
          route.body && JSON.parse(route.body),
        );
      for (let i = 0; i < 5; i++) await send();
      const before = { ...proxies[name].counts };
      for (let i = 0; i < SQL_REQUESTS; i++) {
        const r = await send();
        if (r.status < 200 || r.status >= 300) throw new Error(`${name} ${route.name} (counted): ${r.status}`);
      }
      const per = (k) => r2((proxies[name].counts[k] - before[k]) / SQL_REQUESTS);
      out[route.name][name] = {
        statements: r2(per('execute') + per('query')),
        roundTrips: r2(per('sync') + per('query')),
        parse: per('parse'),
        execute: per('execute'),
        simpleQuery: per('query'),
      };
      log(
        `  ${route.name.padEnd(24)} ${name.padEnd(15)} statements/req ${out[route.name][name].statements}  round trips/req ${out[route.name][name].roundTrips}`,
      );
    }
  }
  return out;
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
    nodeArgs: { 'records-service': [...NODE_ARGS.records, ...cpuProfArgs(CPU_PROF)] },
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
  const child = spawn(process.execPath, [...cpuProfArgs(CPU_PROF, 'reference'), path.join(HERE, 'reference.mjs')], {
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
  return routes.filter((r) => !ONLY || ONLY.includes(r.name)).map((r) => ({ compare: true, ...r, headers }));
}

/** Every route answers 2xx on both servers, with bodies of the same size (same fields). */
async function sanityCheck(routes, servers) {
  for (const route of routes) {
    const sizes = {};
    for (const [name, { url: base }] of Object.entries(servers)) {
      if (name !== RECORDS && !route.compare) continue;
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
    for (const [name, { url: base }] of Object.entries(servers)) {
      if (name !== RECORDS && !route.compare) continue;
      await saturate(base, route, WARMUP_SECONDS);
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

async function measureDirect(routes, servers, db, database) {
  log(`direct: ${ROUNDS} alternating rounds of ${DURATION} s per route and server, ${CONNECTIONS} connections`);
  const names = Object.keys(servers);
  const runs = Object.fromEntries(routes.map((r) => [r.name, Object.fromEntries(names.map((n) => [n, []]))]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const route of routes) {
      const order = round % 2 ? names : [...names].reverse();
      for (const name of order) {
        if (name !== RECORDS && !route.compare) continue;
        const pid = servers[name].pid;
        const backendsBefore = await databaseBackendPids(db, database);
        const before = cpuMsOfEach([pid, ...backendsBefore]);
        const r = await saturate(servers[name].url, route, DURATION);
        const backendsAfter = await databaseBackendPids(db, database);
        const after = cpuMsOfEach([pid, ...new Set([...backendsBefore, ...backendsAfter])]);
        r.cpuMicrosPerRequest = Math.round(((after[pid] - before[pid]) * 1000) / r.requests);
        let dbMs = 0;
        for (const b of Object.keys(after)) if (Number(b) !== pid) dbMs += after[b] - (before[b] ?? 0);
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
 * Open loop: request i is due at start + i/rate and is sent then, whatever happened to the
 * earlier ones (undici pool, enough connections that none waits for a free one); its
 * latency runs from that due time to the end of its answer. `target.host` is the Host of a
 * gateway (HTTPS); without it, plain HTTP to the server.
 */
async function openLoop(target, route, rate, seconds) {
  const pool = new HttpPool(target.url, {
    connections: 512,
    pipelining: 1,
    ...(target.host ? { connect: { rejectUnauthorized: false, servername: target.host } } : {}),
  });
  const latencies = [];
  const dueLatencies = [];
  const statuses = {};
  let errors = 0;
  const inflight = new Set();
  const total = Math.round(rate * seconds);
  const start = performance.now() + 20;
  let sent = 0;
  let lateSends = 0;
  let connectionsOpened = 0;
  pool.on('connect', () => connectionsOpened++);
  const probe = await startProbe(target.probe);
  const gatewayCpuBefore = target.gatewayPid ? cpuMsOf(target.gatewayPid) : undefined;
  const send = (due) => {
    const job = pool
      .request({
        path: route.path,
        method: route.method,
        headers: { ...route.headers, ...(target.host ? { host: target.host } : {}) },
        body: route.body,
      })
      .then(async (res) => {
        await res.body.dump();
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode >= 200 && res.statusCode < 300) {
          latencies.push(performance.now() - due);
          dueLatencies.push([due, performance.now() - due]);
        }
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
  const stall = await probe.stop(start, dueLatencies);
  const gatewayCpuShare =
    gatewayCpuBefore === undefined
      ? undefined
      : r2((cpuMsOf(target.gatewayPid) - gatewayCpuBefore) / (performance.now() - start));
  await pool.close().catch(() => undefined);
  // a request that failed (non-2xx, error, no answer after 30 s) is a latency beyond every bound
  const failed = sent - latencies.length;
  for (let i = 0; i < failed; i++) latencies.push(Infinity);
  return {
    rate,
    seconds,
    sent,
    failed,
    latencies,
    statuses,
    errors,
    lateSendsOver5ms: lateSends,
    loadAverage1m: r2(loadavg()[0]),
    stall,
    // new connections (TCP, and TLS behind a gateway) the client opened in the round, and the
    // share of a core the gateway in front used over it
    connectionsOpened,
    gatewayCpuShare,
  };
}

/**
 * What the server process did during an open-loop round (the stall evidence): its CPU
 * sampled every 100 ms from /proc (the share of one core it got, per 500 ms of the
 * round), and from its /metrics (records-service and baseline; scraped at the start and
 * the end of the round): the longest event-loop delay in the round (prom-client's
 * monitorEventLoopDelay, reset at each scrape) and the garbage collections (count, time,
 * the major ones, and how many took 100 ms or more).
 */
async function startProbe(probe) {
  if (!probe?.pid) return { stop: async () => undefined };
  const before = probe.metrics ? await scrapeRuntime(probe.metrics) : undefined;
  const samples = [[performance.now(), cpuMsOf(probe.pid)]];
  const timer = setInterval(() => samples.push([performance.now(), cpuMsOf(probe.pid)]), 100);
  return {
    async stop(start, dueLatencies) {
      clearInterval(timer);
      samples.push([performance.now(), cpuMsOf(probe.pid)]);
      const after = probe.metrics ? await scrapeRuntime(probe.metrics) : undefined;
      const end = samples.at(-1)[0];
      const SLOT = 500;
      const slots = [];
      // CPU ms at time t, interpolated between the samples around it (a busy machine delays the timer)
      const cpuAt = (t) => {
        const i = samples.findIndex(([at]) => at >= t);
        if (i <= 0) return samples[Math.max(i, 0)][1];
        const [a, ca] = samples[i - 1];
        const [b, cb] = samples[i];
        return ca + ((cb - ca) * (t - a)) / Math.max(b - a, 1e-9);
      };
      for (let t = start; t < end; t += SLOT) {
        const until = Math.min(t + SLOT, end);
        const cpu = cpuAt(until) - cpuAt(t);
        const wall = until - t;
        const lat = dueLatencies.filter(([due]) => due >= t && due < t + SLOT).map(([, l]) => l);
        slots.push({
          at: r2((t - start) / 1000),
          cpuShare: r2(cpu / wall),
          sent: lat.length,
          maxLatencyMs: lat.length ? r2(Math.max(...lat)) : null,
        });
      }
      const sent = slots.filter((x) => x.sent > 0);
      const worst = sent.reduce((a, b) => ((b.maxLatencyMs ?? 0) > (a?.maxLatencyMs ?? -1) ? b : a), undefined);
      const cpuTotal = samples.at(-1)[1] - samples[0][1];
      const out = {
        cpuShare: r2(cpuTotal / (end - samples[0][0])),
        worstSlot: worst,
        slots,
      };
      if (before && after) {
        out.eventLoopLagMaxMs = r2(after.lagMax * 1000);
        out.gc = {
          count: after.gcCount - before.gcCount,
          ms: r2((after.gcSum - before.gcSum) * 1000),
          major: after.majorCount - before.majorCount,
          over100ms: after.gcOver100ms - before.gcOver100ms,
        };
      }
      return out;
    },
  };
}

/** The event-loop delay and garbage-collection series of a process's /metrics. */
async function scrapeRuntime(url) {
  const text = await request(url).then((r) => r.body.text());
  const sum = (re) => [...text.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
  return {
    lagMax: sum(/^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/gm),
    gcSum: sum(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm),
    gcCount: sum(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\S+)$/gm),
    majorCount: sum(/^nodejs_gc_duration_seconds_count\{kind="major"[^}]*\} (\S+)$/gm),
    // every collection minus those at most 0.1 s (the histogram's buckets are cumulative)
    gcOver100ms:
      sum(/^nodejs_gc_duration_seconds_count\{[^}]*\} (\S+)$/gm) -
      sum(/^nodejs_gc_duration_seconds_bucket\{le="0\.1"[^}]*\} (\S+)$/gm),
  };
}

/** The probe's findings on one log line. */
function stallLine(st) {
  if (!st) return '';
  const w = st.worstSlot;
  const lag = st.eventLoopLagMaxMs === undefined ? '' : `  loop lag max ${st.eventLoopLagMaxMs} ms`;
  const gc = st.gc ? `  gc ${st.gc.count} (${st.gc.ms} ms, major ${st.gc.major}, ≥100 ms ${st.gc.over100ms})` : '';
  const around = w ? st.slots.filter((x) => x.at >= w.at - 2 && x.at <= w.at).map((x) => x.cpuShare) : [];
  return (
    `\n      server cpu ${st.cpuShare} core${lag}${gc}` +
    (w ? `; worst at ${w.at} s (max ${w.maxLatencyMs} ms), cpu per 0.5 s up to it: ${around.join(' ')}` : '')
  );
}

/** p50/p90/p99/max of latencies (ms); a failed request counts as Infinity (written as null in the JSON report). */
function percentiles(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (q) => r2(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN);
  return { p50: pct(0.5), p90: pct(0.9), p99: pct(0.99), max: r2(sorted.at(-1) ?? NaN) };
}

/**
 * The latency goal: GET record at each read rate and POST record into one vault at each
 * create rate, directly and through each server's gateway, records-service and the
 * reference (and the baseline, directly) alternating round by round.
 */
async function measureOpenLoop(servers, gateways, { vaults, recordId }, token) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const kinds = {
    read: {
      rates: READ_RATES,
      route: { path: `/api/v1/vault/vault-id/${vaults.record}/records/record-id/${recordId}`, method: 'GET', headers },
    },
    create: {
      rates: CREATE_RATES,
      route: {
        path: `/api/v1/vault/vault-id/${vaults.creates}/records`,
        method: 'POST',
        headers,
        body: JSON.stringify(RECORD_BODY),
      },
    },
  };
  // each server's process is watched during its rounds (behind a gateway: the server behind it)
  const probeOf = (s) => ({ pid: s.pid, metrics: s.metrics });
  const paths = {
    direct: Object.fromEntries(Object.entries(servers).map(([n, s]) => [n, { url: s.url, probe: probeOf(s) }])),
    gateway: Object.fromEntries(
      Object.entries(gateways).map(([n, g]) => [
        n,
        { url: g.url, host: 'records-api.localhost', probe: probeOf(servers[n]), gatewayPid: g.pid },
      ]),
    ),
  };
  // a short warm-up of every path's connections
  for (const targets of Object.values(paths)) for (const t of Object.values(targets)) await openLoop(t, kinds.read.route, 100, 2);
  const out = { read: [], create: [] };
  for (const [kind, { rates, route }] of Object.entries(kinds)) {
    for (const rate of rates) {
      for (const [pathName, targets] of Object.entries(paths)) {
        const names = Object.keys(targets);
        const runs = Object.fromEntries(names.map((n) => [n, []]));
        for (let round = 1; round <= OPEN_ROUNDS; round++) {
          for (const name of round % 2 ? names : [...names].reverse()) {
            const r = await openLoop(targets[name], route, rate, RATE_SECONDS);
            runs[name].push(r);
            const q = percentiles(r.latencies);
            log(
              `open loop ${kind} ${rate}/s ${pathName.padEnd(7)} round ${round} ${name.padEnd(15)} p50 ${q.p50} ms  p99 ${q.p99} ms  ` +
                `max ${q.max} ms  ${JSON.stringify(r.statuses)} errors ${r.errors} late ${r.lateSendsOver5ms} load ${r.loadAverage1m}` +
                ` connections opened ${r.connectionsOpened}` +
                (r.gatewayCpuShare === undefined ? '' : ` gateway cpu ${r.gatewayCpuShare} core`) +
                stallLine(r.stall),
            );
          }
        }
        const result = { rate, path: pathName, servers: {} };
        for (const name of names) {
          const rs = runs[name];
          const failed = rs.reduce((n, r) => n + r.failed, 0);
          result.servers[name] = {
            ...percentiles(rs.flatMap((r) => r.latencies)),
            roundP99s: rs.map((r) => percentiles(r.latencies).p99),
            // per round: the server's CPU, event-loop delay and collections (startProbe)
            probes: rs.map((r) => r.stall),
            sent: rs.reduce((n, r) => n + r.sent, 0),
            failed,
            lateSendsOver5ms: rs.reduce((n, r) => n + r.lateSendsOver5ms, 0),
            loadAverages1m: rs.map((r) => r.loadAverage1m),
            connectionsOpened: rs.map((r) => r.connectionsOpened),
            gatewayCpuShares: rs.map((r) => r.gatewayCpuShare),
          };
        }
        const ref = result.servers[REFERENCE].p99;
        result.p99Ratio = r2(result.servers[RECORDS].p99 / ref);
        // the goal's ratio: per round pair (the same minutes), then the median of the pairs
        const refRounds = result.servers[REFERENCE].roundP99s;
        result.pairedP99Ratios = result.servers[RECORDS].roundP99s.map((p, i) => r2(p / refRounds[i]));
        // a failed request makes a round's p99 Infinity: it counts (against the ratio), it is not left out
        const pairs = [...result.pairedP99Ratios].sort((a, b) => a - b);
        result.medianPairedP99Ratio =
          pairs.length % 2 ? pairs[(pairs.length - 1) / 2] : r2((pairs[pairs.length / 2 - 1] + pairs[pairs.length / 2]) / 2);
        if (result.servers[BASE]) result.baselineP99Ratio = r2(result.servers[RECORDS].p99 / result.servers[BASE].p99);
        log(
          `open loop ${kind} ${rate}/s ${pathName}: p99 records-service ${result.servers[RECORDS].p99} ms vs reference ${ref} ms: ratio ${result.p99Ratio}` +
            `; per round pair ${result.pairedP99Ratios.join(', ')}, median ${result.medianPairedP99Ratio}` +
            (result.servers[BASE] ? `, baseline ${result.servers[BASE].p99} ms` : ''),
        );
        out[kind].push(result);
      }
    }
  }
  return out;
}

function summaryOf(runs) {
  return {
    rps: Math.round(median(runs.map((r) => r.rps))),
    cpuMicrosPerRequest: median(runs.map((r) => r.cpuMicrosPerRequest)),
    dbCpuMicrosPerRequest: median(runs.map((r) => r.dbCpuMicrosPerRequest)),
  };
}

function writeReport({ routes, directRuns, openLoop, sql, seed, commit, servers }) {
  const direct = {};
  for (const route of routes) {
    const runs = directRuns[route.name];
    if (!runs) continue;
    const s = summaryOf(runs[RECORDS]);
    const entry = { recordsService: s, responseBytes: route.responseBytes };
    if (route.compare) {
      const f = summaryOf(runs[REFERENCE]);
      Object.assign(entry, {
        reference: f,
        ratio: r2(s.rps / f.rps),
        medianPairedRatio: r2(median(runs[RECORDS].map((r, i) => r.rps / runs[REFERENCE][i].rps))),
        cpuPerRequestRatio: r2(s.cpuMicrosPerRequest / f.cpuMicrosPerRequest),
        dbCpuPerRequestRatio: r2(s.dbCpuMicrosPerRequest / f.dbCpuMicrosPerRequest),
      });
      if (runs[BASE]) {
        const b = summaryOf(runs[BASE]);
        Object.assign(entry, {
          baseline: b,
          baselineRatio: r2(s.rps / b.rps),
          baselineCpuRatio: r2(s.cpuMicrosPerRequest / b.cpuMicrosPerRequest),
        });
      }
    }
    direct[route.name] = entry;
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
  const compared = Object.entries(direct).filter(([, d]) => d.ratio !== undefined);
  const openGoal = (kind, rate) =>
    Object.fromEntries(openLoop[kind].filter((r) => r.rate === rate).map((r) => [r.path, r.medianPairedP99Ratio <= 1.5]));
  const goals = {
    throughputAtLeast0_67OfReference: Object.fromEntries(compared.map(([n, d]) => [n, d.ratio >= 0.67])),
    cpuPerRequestAtMost1_5xReference: Object.fromEntries(compared.map(([n, d]) => [n, d.cpuPerRequestRatio <= 1.5])),
    dbCpuPerRequestAtMost1_2xReference: Object.fromEntries(compared.map(([n, d]) => [n, d.dbCpuPerRequestRatio <= 1.2])),
    readP99AtMost1_5xReferenceAt500: openGoal('read', 500),
    createP99AtMost1_5xReferenceAt200: openGoal('create', 200),
    flatWithin1_5x: Object.fromEntries(Object.entries(flatness).map(([n, v]) => [n, v !== undefined && v <= 1.5])),
  };
  const report = {
    date: new Date().toISOString(),
    commit,
    baseline: BASELINE,
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
      openRounds: OPEN_ROUNDS,
      readRates: READ_RATES,
      createRates: CREATE_RATES,
      sqlRequests: SQL_REQUESTS,
      servers: Object.keys(servers),
    },
    seed: {
      logCountsTable: seed.logCountsTable,
      logEntries: [LOG_LARGE, LOG_SMALL],
      searchRecords: [SEARCH_LARGE, SEARCH_SMALL],
    },
    direct,
    flatness,
    openLoop,
    sql,
    goals,
    runs: directRuns,
  };
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  const out = path.join(ROOT, '.data/bench/api.json');
  writeFileSync(out, JSON.stringify(report, null, 2));

  console.log('');
  if (Object.keys(direct).length) {
    console.log(
      `records-service vs reference, direct HTTP, ${CONNECTIONS} connections, medians of ${ROUNDS} rounds of ${DURATION} s (commit ${commit})`,
    );
    console.log(
      '| Route | records-service req/s | reference req/s | ratio (paired) | CPU/req service vs ref (µs) | DB CPU/req service vs ref (µs) |' +
        (BASELINE ? ` baseline ${BASELINE} req/s, CPU/req |` : ''),
    );
    console.log(`|---|---|---|---|---|---|${BASELINE ? '---|' : ''}`);
    for (const [name, d] of Object.entries(direct)) {
      const s = d.recordsService;
      const f = d.reference;
      const b = d.baseline;
      console.log(
        `| ${name} | ${s.rps} | ${f ? f.rps : '–'} | ${d.ratio ?? '–'}${f ? ` (${d.medianPairedRatio})` : ''}${d.ratio !== undefined && d.ratio < 0.67 ? ' below 0.67' : ''} | ` +
          `${s.cpuMicrosPerRequest} vs ${f ? f.cpuMicrosPerRequest : '–'}${f ? ` (${d.cpuPerRequestRatio}x)` : ''} | ` +
          `${s.dbCpuMicrosPerRequest} vs ${f ? f.dbCpuMicrosPerRequest : '–'}${f ? ` (${d.dbCpuPerRequestRatio}x)` : ''} |` +
          (BASELINE ? ` ${b ? `${b.rps}, ${b.cpuMicrosPerRequest} + db ${b.dbCpuMicrosPerRequest} µs` : '–'} |` : ''),
      );
    }
    console.log('');
    for (const [name, v] of Object.entries(flatness)) console.log(`flatness ${name}: ${v ?? '–'} (goal at most 1.5)`);
  }
  for (const kind of ['read', 'create']) {
    for (const r of openLoop[kind]) {
      const srv = Object.entries(r.servers)
        .map(([n, q]) => `${n} p50 ${q.p50} / p99 ${q.p99} ms (rounds ${q.roundP99s.join(', ')})`)
        .join('; ');
      console.log(
        `open loop ${kind === 'read' ? 'GET record' : 'POST record'} ${r.rate}/s ${r.path}: ${srv}; p99 of all rounds ratio ${r.p99Ratio}; ` +
          `per round pair ${r.pairedP99Ratios.join(', ')}, median ${r.medianPairedP99Ratio} (goal at most 1.5)`,
      );
    }
  }
  if (Object.keys(sql).length) {
    console.log('');
    console.log('| Route | statements / round trips per request: ' + Object.keys(Object.values(sql)[0]).join(' | ') + ' |');
    for (const [name, per] of Object.entries(sql))
      console.log(
        `| ${name} | ${Object.values(per)
          .map((c) => `${c.statements} / ${c.roundTrips}`)
          .join(' | ')} |`,
      );
  }
  console.log(`written to ${path.relative(ROOT, out)}`);
}

runBench(main, { cleanups, log, settleMs: 300 });
