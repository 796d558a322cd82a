/**
 * Start-up shared by the benchmarks that run the whole platform (bench:api, bench:files,
 * bench:events): the build, a bootstrap tenant whose user signs in, a plans file, the four
 * apps on throw-away databases (scripts/platform.cjs) and the CPU and memory readings of
 * a process from /proc.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { request } from 'undici';

const require = createRequire(import.meta.url);
export const platform = require('../scripts/platform.cjs');
export const { ROOT } = platform;

export const PG_SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const TENANT = 'bench';
export const CLIENT = 'bench-app';
export const SECRET = 'bench-secret-0123456789';
export const USER = { username: 'bench@vault.local', password: 'bench-password-0123' };
export const APPS = ['gateway', 'developer-service', 'user-service', 'records-service'];
/** Node options given in an environment variable, space-separated (BENCH_NODE_ARGS and its kin). */
export const nodeArgsOf = (value) => (value ?? '').split(/\s+/).filter(Boolean);
/** Node options that profile a process into `dir`/`sub` (BENCH_CPU_PROF); none when `dir` is unset. */
export const cpuProfArgs = (dir, sub = '') => (dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir, sub)}`] : []);
export const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim()) || 100;

/** Builds the four apps (nx cache) unless BENCH_SKIP_BUILD=1. */
export function buildApps(log) {
  if (process.env.BENCH_SKIP_BUILD === '1') return;
  log('building the apps (nx cache)');
  const r = spawnSync('npx', ['nx', 'run-many', '-t', 'build', `--projects=${APPS.join(',')}`], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

/** The shipped plans; `edit` changes the default plan's features. */
export function benchPlans(edit) {
  const plans = JSON.parse(
    readFileSync(path.join(ROOT, 'apps/records-service/src/capabilities/plans/default-plans.json'), 'utf8'),
  );
  edit(plans.plans.find((p) => p.id === plans.defaultPlan).features);
  return plans;
}

/**
 * The four apps on free ports (NODE_ENV=production, LOG_LEVEL=warn, rate limits out of
 * reach) with throw-away databases `vault_bench_<name>_<app>_<pid>` on PG_SERVER, NATS
 * from NATS_URL, the bootstrap tenant TENANT with USER, `plans` as the plans file and
 * the filesystem storage under `work`. Drops the databases and stops the apps through
 * `cleanups` (run in order at the end). `env` adds or overrides variables.
 */
export async function startBenchPlatform({ name, work, plans, env = {}, nodeArgs, mains, onOutput, cleanups, log }) {
  const suffix = process.pid;
  const databases = {
    'developer-service': `vault_bench_${name}_dev_${suffix}`,
    'user-service': `vault_bench_${name}_user_${suffix}`,
    'records-service': `vault_bench_${name}_rec_${suffix}`,
  };
  cleanups.push(() => platform.dropDatabases(PG_SERVER, Object.values(databases)));
  const bootstrap = path.join(work, 'bootstrap.json');
  writeFileSync(
    bootstrap,
    JSON.stringify({
      tenants: [
        {
          id: TENANT,
          name: 'Bench',
          applications: [{ clientId: CLIENT, clientSecret: SECRET, testMode: false, redirectUris: [] }],
          users: [USER],
        },
      ],
    }),
  );
  const plansFile = path.join(work, 'plans.json');
  writeFileSync(plansFile, JSON.stringify(plans));
  log('starting the platform (scripts/platform.cjs)');
  const p = await platform.launchPlatform({
    postgresUrl: PG_SERVER,
    natsUrl: NATS_URL,
    databases,
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      // production requires the key that encrypts webhook signing secrets: one for this run
      WEBHOOK_SECRET_KEYS: `bench:${randomBytes(32).toString('base64')}`,
      // and the key-encryption keys of files at rest: a keyring of one key for this run
      ENCRYPTION_KEYRING: `bench:${randomBytes(32).toString('base64')}`,
      VAULT_BOOTSTRAP_FILE: bootstrap,
      VAULT_PLANS_FILE: plansFile,
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: path.join(work, 'storage'),
      CERT_DIR: path.join(work, 'certs'),
      RATE_LIMIT_CALLER_PER_MINUTE: '0',
      RATE_LIMIT_TENANT_PER_MINUTE: '0',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '0',
      ...env,
    },
    nodeArgs,
    mains,
    onOutput: childOutput(onOutput),
  });
  cleanups.unshift(() => p.stop());
  return p;
}

/**
 * What the apps print: `onOutput`, else their errors and warnings on the console; with
 * BENCH_CHILD_LOG=<dir>, also every line of each app in `<dir>/<app>.log` (to read what a
 * node option such as `--trace-gc` prints, through BENCH_NODE_ARGS).
 */
function childOutput(onOutput) {
  const shown = onOutput ?? ((app, line) => /ERROR|WARN|Error/.test(line) && console.log(`  [${app}] ${line}`));
  const dir = process.env.BENCH_CHILD_LOG;
  if (!dir) return shown;
  mkdirSync(dir, { recursive: true });
  return (app, line) => {
    appendFileSync(path.join(dir, `${app}.log`), `${line}\n`);
    shown(app, line);
  };
}

/** The bootstrap user's access token, from developer-service's own port. */
export async function signIn(p) {
  const res = await request(
    `http://127.0.0.1:${p.ports['developer-service']}/api/v1/tenant/tenant-id/${TENANT}/applications/client-id/${CLIENT}/auth`,
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientSecret: SECRET, ...USER }) },
  );
  const body = await res.body.json();
  if (res.statusCode !== 200) throw new Error(`auth answered ${res.statusCode}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** CPU time (user + system) a process used so far, in ms; undefined when it is gone. */
export function cpuMsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** CPU ms (user + system) so far of each pid, by pid; pids that are gone are left out. */
export function cpuMsOfEach(pids) {
  const out = {};
  for (const pid of pids) {
    const ms = cpuMsOf(pid);
    if (ms !== undefined) out[pid] = ms;
  }
  return out;
}

/**
 * PostgreSQL client backends connected to `database` (the servers' pools), without the one
 * asking: their CPU is the database's share of the work measured. Client backends only: an
 * autovacuum worker on that database works for no server in particular.
 */
export async function databaseBackendPids(db, database) {
  const { rows } = await db.query(
    `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
    [database],
  );
  return rows.map((r) => r.pid);
}

/** VmRSS of a process in MiB. */
export function rssMiBOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024;
}

/**
 * Runs a benchmark's `main`, then the `cleanups` in order (also after a failure, SIGINT or
 * SIGTERM; `settleMs` first, so requests still in flight end before the apps stop).
 */
export function runBench(main, { cleanups, log, settleMs = 0 }) {
  let shuttingDown;
  const shutdown = () => {
    shuttingDown ??= (async () => {
      await new Promise((r) => setTimeout(r, settleMs));
      for (const c of cleanups.splice(0)) await c().catch((err) => console.error(`cleanup: ${err.message}`));
    })();
    return shuttingDown;
  };
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      shutdown().finally(() => process.exit(130));
    });
  }
  main()
    .then(shutdown)
    .catch(async (err) => {
      console.error(err);
      await shutdown();
      process.exit(1);
    });
}
