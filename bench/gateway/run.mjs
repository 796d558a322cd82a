#!/usr/bin/env node
/**
 * Gateway benchmark: the same authenticated GET measured direct to user-service
 * (plain HTTP on its port) and through the gateway (HTTPS, Host
 * user-api.localhost), alternating, with autocannon. Prints and writes
 * (.data/bench/gateway.json) the throughput ratio gateway/direct and the
 * latency the gateway adds at p50 and p99.
 *
 * Two phases, each in alternating rounds:
 * 1. saturation: as many requests as BENCH_CONNECTIONS connections carry;
 *    gives the throughput of each path and the ratio.
 * 2. latency: BENCH_LATENCY_CONNECTIONS (default 1) connections, each
 *    sending its next request when the previous answered, so nothing queues;
 *    the difference at p50/p99 is what the extra hop adds (at saturation the
 *    latency only mirrors throughput). Latencies are taken per response at
 *    sub-millisecond precision (autocannon's own histogram is whole ms).
 *
 * Self-contained: builds (nx cache) and starts dist/apps/user-service and
 * dist/apps/gateway on free ports, with a throw-away database on the
 * PostgreSQL server of DATABASE_URL and NATS from NATS_URL, and signs the
 * bearer token with its own key whose JWKS it serves on loopback.
 *
 * A/B: with BENCH_BASELINE=<commit>, user-service is also built from that commit (in a
 * temporary git worktree) and started beside this checkout's on the same database, JWKS
 * and token; the rounds then alternate direct, baseline and gateway, and the report gives
 * this build against the baseline (throughput ratio, latency, CPU per request): a change
 * of the request path measured before/after in one run.
 *
 * Variables: BENCH_DURATION (s per run, 6), BENCH_CONNECTIONS (10),
 * BENCH_ROUNDS (5), BENCH_LATENCY_CONNECTIONS (1), BENCH_SKIP_BUILD=1, BENCH_BASELINE,
 * DATABASE_URL, NATS_URL.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { runBench } from '../bench-platform.mjs';

const require = createRequire(import.meta.url);
const platform = require('../../scripts/platform.cjs');
const { ROOT } = platform;

const DURATION = Number(process.env.BENCH_DURATION ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LATENCY_CONNECTIONS = Number(process.env.BENCH_LATENCY_CONNECTIONS ?? 1);
const PG_SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const ISSUER = 'https://developer-api.localhost:8443/api/v1';
const AUDIENCE = 'vault-api';
const HOST = 'user-api.localhost';
const ROUTE = '/api/v1/accounts/username/bench-user/check';
const BASELINE = process.env.BENCH_BASELINE?.trim() || undefined;

const log = (msg) => console.log(`[bench] ${msg}`);
const children = [];
const pids = {};
const cleanups = [];
/** A temporary folder, removed at the end. */
const tempDir = (prefix) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

async function main() {
  build();
  const baselineMain = BASELINE ? buildBaseline(BASELINE) : undefined;
  const targets = await startApps(baselineMain);
  await sanityCheck(targets);
  await warmUp(targets);
  const { saturation, latency } = await measurePhases(targets);
  writeReport(saturation, latency);
}

function build() {
  if (process.env.BENCH_SKIP_BUILD === '1') return;
  log('building gateway and user-service (nx cache)');
  const r = spawnSync('npx', ['nx', 'run-many', '-t', 'build', '--projects=gateway,user-service'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('build failed');
}

/** Builds user-service at `commit` in a temporary worktree (this checkout's node_modules); its main.js. */
function buildBaseline(commit) {
  const dir = tempDir('bench-baseline-');
  log(`building user-service at ${commit} (baseline) in ${dir}`);
  const git = (...args) => spawnSync('git', args, { cwd: ROOT, stdio: 'inherit' });
  if (git('worktree', 'add', '--detach', dir, commit).status !== 0) throw new Error(`no worktree at ${commit}`);
  cleanups.push(async () => git('worktree', 'remove', '--force', dir));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const r = spawnSync('npx', ['nx', 'run', 'user-service:build', '--skip-nx-cache'], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' },
  });
  if (r.status !== 0) throw new Error('baseline build failed');
  return path.join(dir, 'dist/apps/user-service/main.js');
}

/** The key server, user-service on a throw-away database and the gateway in front (and the baseline); returns the targets. */
async function startApps(baselineMain) {
  const { jwksUrl, token } = await startKeyServer();
  const database = `vault_bench_user_${process.pid}`;
  await platform.ensureDatabases(PG_SERVER, [database]);
  cleanups.push(() => platform.dropDatabases(PG_SERVER, [database]));

  const userPort = await platform.freePort();
  const httpsPort = await platform.freePort();
  const httpPort = await platform.freePort();
  const userEnv = (port) => ({
    PORT: String(port),
    DATABASE_URL: platform.databaseUrl(PG_SERVER, database),
    NATS_URL,
    AUTH_JWKS_URL: jwksUrl,
    AUTH_ISSUER: ISSUER,
    AUTH_AUDIENCE: AUDIENCE,
    MAIL_DIR: tempDir('bench-mail-'),
    SMS_DIR: tempDir('bench-sms-'),
  });
  await startApp('user-service', `http://127.0.0.1:${userPort}/health/ready`, userEnv(userPort));
  const baselinePort = baselineMain ? await platform.freePort() : undefined;
  if (baselineMain) {
    const ready = `http://127.0.0.1:${baselinePort}/health/ready`;
    await startApp('user-service-baseline', ready, { ...userEnv(baselinePort), DB_MIGRATE_ON_START: 'false' }, baselineMain);
  }
  await startApp('gateway', `https://127.0.0.1:${httpsPort}/health/ready`, {
    HTTPS_PORT: String(httpsPort),
    HTTP_PORT: String(httpPort),
    USER_SERVICE_URL: `http://127.0.0.1:${userPort}`,
    CERT_DIR: tempDir('bench-certs-'),
    // The limiter stays in the path, with a ceiling the benchmark never reaches.
    RATE_LIMIT_CALLER_PER_MINUTE: '0',
    RATE_LIMIT_TENANT_PER_MINUTE: '0',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
    RATE_LIMIT_ADDRESS_PER_MINUTE: '0',
  });

  const authorization = `Bearer ${token}`;
  return {
    ...(baselineMain ? { baseline: { url: `http://127.0.0.1:${baselinePort}${ROUTE}`, headers: { authorization } } } : {}),
    direct: { url: `http://127.0.0.1:${userPort}${ROUTE}`, headers: { authorization } },
    gateway: {
      url: `https://127.0.0.1:${httpsPort}${ROUTE}`,
      headers: { authorization, host: HOST },
      servername: HOST,
    },
  };
}

async function warmUp(targets) {
  log(`warming up (${CONNECTIONS} connections)`);
  for (const t of Object.values(targets)) await measure(t, 3, CONNECTIONS);
}

async function measurePhases(targets) {
  log('phase 1: saturation');
  const saturation = await rounds(targets, CONNECTIONS);
  log(`phase 2: latency with ${LATENCY_CONNECTIONS} connection(s)`);
  const latency = await rounds(targets, LATENCY_CONNECTIONS);
  return { saturation, latency };
}

/** Writes .data/bench/gateway.json and prints the summary. */
function writeReport(saturation, latency) {
  const summary = summarise(saturation, latency);
  const report = {
    date: new Date().toISOString(),
    route: `GET ${ROUTE} (authenticated, Bearer ES256 token)`,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      loadAverage: loadavg().map((l) => +l.toFixed(2)),
    },
    settings: {
      durationSeconds: DURATION,
      connections: CONNECTIONS,
      latencyConnections: LATENCY_CONNECTIONS,
      rounds: ROUNDS,
      baseline: BASELINE,
    },
    ...summary,
    runs: { saturation, latency },
  };
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  const out = path.join(ROOT, '.data/bench/gateway.json');
  writeFileSync(out, JSON.stringify(report, null, 2));
  console.log('');
  const t = summary.throughput;
  const l = summary.latency;
  console.log(
    `CPU per request (µs): direct ${JSON.stringify(summary.cpuMicrosPerRequest.direct)}, through the gateway ${JSON.stringify(summary.cpuMicrosPerRequest.gateway)}`,
  );
  console.log(`saturation: direct ${t.direct.toFixed(0)} req/s, gateway ${t.gateway.toFixed(0)} req/s`);
  console.log(
    `throughput ratio gateway/direct: ${t.ratio.toFixed(2)} (median of per-round ratios ${t.medianPairedRatio.toFixed(2)}; goal >= 0.6)`,
  );
  console.log(
    `${LATENCY_CONNECTIONS} connection(s): direct p50 ${l.direct.p50} ms p99 ${l.direct.p99} ms; gateway p50 ${l.gateway.p50} ms p99 ${l.gateway.p99} ms`,
  );
  console.log(`added latency: p50 ${l.addedP50} ms, p99 ${l.addedP99} ms (goal p99 < 5 ms)`);
  if (summary.ab) {
    const { baseline: a, current: b } = summary.ab;
    console.log(
      `A/B against ${BASELINE}: baseline ${a.rps.toFixed(0)} req/s p50 ${a.p50} ms p99 ${a.p99} ms cpu/req ${a.cpu['user-service-baseline']} µs; ` +
        `this build ${b.rps.toFixed(0)} req/s p50 ${b.p50} ms p99 ${b.p99} ms cpu/req ${b.cpu['user-service']} µs; ` +
        `ratio ${summary.ab.throughputRatio.toFixed(3)} (median of per-round ratios ${summary.ab.medianPairedRatio.toFixed(3)})`,
    );
  }
  console.log(`written to ${path.relative(ROOT, out)}`);
}

/** An ES256 key, its JWKS on loopback, and a bearer token signed with it. */
async function startKeyServer() {
  const kid = randomUUID();
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const server = createServer((_, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => server.close(r)));
  const token = await new SignJWT({ tid: 'bench-tenant', cid: 'bench-client', scope: 'vault', preferred_username: 'bench-user' })
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
    .setSubject(`vault|${randomUUID()}`)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('2h')
    .setJti(randomUUID())
    .sign(privateKey);
  return { jwksUrl: `http://127.0.0.1:${server.address().port}/jwks.json`, token };
}

async function startApp(app, readyUrl, env, main = path.join(ROOT, 'dist/apps', app, 'main.js')) {
  const child = spawn(process.execPath, [main], {
    cwd: path.dirname(path.dirname(path.dirname(path.dirname(main)))),
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  pids[app] = child.pid;
  await platform.waitForReady(readyUrl, 60000, () => child.exitCode === null);
  log(`${app} ready (${readyUrl.replace('/health/ready', '')})`);
}

async function sanityCheck(targets) {
  const results = {};
  for (const [name, t] of Object.entries(targets)) {
    const r = await measure(t, 1, 1);
    if (r.non2xx > 0 || r.errors > 0 || r.requests === 0) {
      throw new Error(`${name}: the measured route does not answer 200 (non-2xx ${r.non2xx}, errors ${r.errors})`);
    }
    results[name] = r.requests;
  }
  log(`route answers 200 direct and through the gateway (${JSON.stringify(results)} requests in 1 s)`);
}

/** Alternating rounds over the targets (the order turned each round); returns the runs of each. */
async function rounds(targets, connections) {
  const names = Object.keys(targets);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    const shift = (round - 1) % names.length;
    for (const name of [...names.slice(shift), ...names.slice(0, shift)]) {
      const before = cpuSnapshot();
      const r = await measure(targets[name], DURATION, connections);
      r.cpuMicrosPerRequest = cpuPerRequest(before, cpuSnapshot(), r.requests);
      runs[name].push(r);
      log(
        `round ${round} ${name.padEnd(7)} ${r.rps.toFixed(0)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms` +
          `  non-2xx ${r.non2xx}  errors ${r.errors}  cpu/req ${JSON.stringify(r.cpuMicrosPerRequest)}`,
      );
    }
  }
  return runs;
}

/** One autocannon run; latencies recorded per 2xx response (autocannon's own histogram is whole ms). */
function measure(target, duration, connections) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const instance = autocannon({ ...target, method: 'GET', connections, duration, pipelining: 1 }, (err, result) => {
      if (err) return reject(err);
      latencies.sort((a, b) => a - b);
      resolve({
        rps: result.requests.average,
        requests: result.requests.total,
        p50: percentile(latencies, 50),
        p90: percentile(latencies, 90),
        p99: percentile(latencies, 99),
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      });
    });
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
}

/** CPU time (user + system, ms; /proc counts 10 ms clock ticks) used so far by each app, from /proc (Linux); {} elsewhere. */
function cpuSnapshot() {
  const snap = {};
  for (const [app, pid] of Object.entries(pids)) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      snap[app] = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    } catch {
      // not Linux: no CPU figures
    }
  }
  return snap;
}

/** Microseconds of CPU each app spent per request during a run. */
function cpuPerRequest(before, after, requests) {
  const out = {};
  for (const app of Object.keys(after)) out[app] = Math.round(((after[app] - before[app]) * 1000) / requests);
  return out;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return +sorted[Math.max(0, i)].toFixed(2);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Medians over the rounds (robust against a round disturbed by other load on
 * the machine); the ratio is also given as the median of the per-round ratios
 * (direct and gateway of one round run back to back).
 */
function summarise(saturation, latency) {
  const rps = (rs) => median(rs.map((r) => r.rps));
  const pairedRatios = saturation.gateway.map((g, i) => g.rps / saturation.direct[i].rps);
  const lat = (rs) => ({ p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)) });
  const direct = lat(latency.direct);
  const gateway = lat(latency.gateway);
  const cpu = (rs) => {
    const apps = Object.keys(rs[0]?.cpuMicrosPerRequest ?? {});
    return Object.fromEntries(apps.map((a) => [a, median(rs.map((r) => r.cpuMicrosPerRequest[a]))]));
  };
  const ab = saturation.baseline && {
    baseline: { rps: rps(saturation.baseline), ...lat(latency.baseline), cpu: cpu(saturation.baseline) },
    current: { rps: rps(saturation.direct), ...direct, cpu: cpu(saturation.direct) },
    throughputRatio: rps(saturation.direct) / rps(saturation.baseline),
    medianPairedRatio: median(saturation.direct.map((d, i) => d.rps / saturation.baseline[i].rps)),
  };
  return {
    ...(ab ? { ab } : {}),
    cpuMicrosPerRequest: { direct: cpu(saturation.direct), gateway: cpu(saturation.gateway) },
    throughput: {
      direct: rps(saturation.direct),
      gateway: rps(saturation.gateway),
      ratio: rps(saturation.gateway) / rps(saturation.direct),
      medianPairedRatio: median(pairedRatios),
    },
    latency: {
      direct,
      gateway,
      addedP50: +(gateway.p50 - direct.p50).toFixed(2),
      addedP99: +(gateway.p99 - direct.p99).toFixed(2),
    },
  };
}

async function shutdown() {
  // Let the requests autocannon left in flight finish before the apps stop.
  await new Promise((r) => setTimeout(r, 500));
  for (const child of children.reverse()) {
    if (child.exitCode !== null) continue;
    await new Promise((r) => {
      child.once('exit', r);
      child.kill('SIGTERM');
    });
  }
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
}

runBench(main, { cleanups: [shutdown], log });
