#!/usr/bin/env node
// `npm run deploy:install`: the images' production install, proven without a container
// engine (CI runs it). For each app it builds the bundle, installs the app's production
// dependencies into a temporary folder with the Dockerfile's own script
// (deploy/docker/install-production.sh: `npm ci --omit=dev` of the package.json and
// lockfile Nx generates), and puts main.js beside them, as the image does. Then, with
// NODE_ENV=production against PostgreSQL and NATS: `node main.js migrate` for each service,
// the four apps started from those folders until /health/ready answers 200, the README
// walk-through through the gateway, and SIGTERM to each, which must end it with exit 0.
// A module missing from an app's dependencies, a lockfile out of step with its
// package.json or a build tool among the dependencies fails the run.
//
// Environment: PG_SERVER (default postgres://postgres@127.0.0.1:5432/postgres), NATS_URL
// (default nats://127.0.0.1:4222), SKIP_BUILD=1 to use dist/ as it is, KEEP=1 to keep the
// folders.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO, walkThrough } from './walk-through.mjs';

const require = createRequire(import.meta.url);
const platform = require('./platform.cjs');
const { ROOT, APPS } = platform;
const SERVICES = APPS.filter((app) => app !== 'gateway');
const PG_SERVER = process.env.PG_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const INSTALL_SCRIPT = join(ROOT, 'deploy/docker/install-production.sh');

const log = (line) => console.log(`deploy:install: ${line}`);

/** Runs a command to its end; its output is kept and shown only when it fails. */
function run(what, command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (c) => output.push(c));
    child.stderr.on('data', (c) => output.push(c));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) {
        log(`${what}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        return resolve(Buffer.concat(output).toString('utf8'));
      }
      process.stderr.write(Buffer.concat(output));
      reject(new Error(`${what} failed (${signal ?? `exit ${code}`})`));
    });
  });
}

/** The production install of one app in a folder of its own, as the image's prod-deps stage makes it. */
async function install(app, work) {
  const dir = join(work, app);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  for (const file of ['package.json', 'package-lock.json', 'main.js'])
    copyFileSync(join(ROOT, 'dist/apps', app, file), join(dir, file));
  await run(`${app}: production install`, 'sh', [INSTALL_SCRIPT, dir], { cwd: dir });
  return join(dir, 'main.js');
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'vault-prod-install-'));
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const databases = Object.fromEntries(SERVICES.map((app) => [app, `vault_prodinstall_${app.split('-')[0]}_${suffix}`]));
  const cleanups = [];
  try {
    if (!process.env.SKIP_BUILD) {
      await run(
        'build',
        process.execPath,
        [require.resolve('nx/bin/nx.js'), 'run-many', '-t', 'build', `--projects=${APPS.join(',')}`, '--outputStyle=static'],
        {
          cwd: ROOT,
          env: { ...process.env, NX_DAEMON: 'false' },
        },
      );
    }
    // All four at once: npm's cache takes concurrent installs, and side by side they keep
    // both CPUs busy (58 s against 74 s one at a time on the 2-core CI machine).
    const mains = Object.fromEntries(await Promise.all(APPS.map(async (app) => [app, await install(app, work)])));

    const bootstrap = join(work, 'bootstrap.json');
    writeFileSync(
      bootstrap,
      JSON.stringify({
        tenants: [
          {
            id: DEMO.tenant,
            name: 'Demo',
            applications: [{ clientId: DEMO.client, clientSecret: DEMO.clientSecret, testMode: false, redirectUris: [] }],
            users: [{ username: DEMO.username, password: DEMO.password }],
          },
        ],
      }),
    );
    const env = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      EVENTS_NAMESPACE: `prodinstall_${suffix}`,
      WEBHOOK_SECRET_KEYS: `install:${randomBytes(32).toString('base64')}`,
      ENCRYPTION_KEYRING: `install:${randomBytes(32).toString('base64')}`,
      KEY_ENCRYPTION_SECRET: randomBytes(24).toString('hex'),
      VAULT_BOOTSTRAP_FILE: bootstrap,
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: join(work, 'storage'),
      CERT_DIR: join(work, 'certs'),
    };
    cleanups.push(() => platform.dropDatabases(PG_SERVER, Object.values(databases)));
    await platform.ensureDatabases(PG_SERVER, Object.values(databases));
    for (const app of SERVICES) {
      await run(`${app}: node main.js migrate`, process.execPath, [mains[app], 'migrate'], {
        cwd: join(work, app),
        env: { ...process.env, ...env, DATABASE_URL: platform.databaseUrl(PG_SERVER, databases[app]) },
      });
    }

    const output = [];
    const p = await platform
      .launchPlatform({
        postgresUrl: PG_SERVER,
        natsUrl: NATS_URL,
        databases,
        mains,
        env,
        onOutput: (app, line) => output.push(`[${app}] ${line}`),
      })
      .catch((err) => {
        process.stderr.write(`${output.join('\n')}\n`);
        throw err;
      });
    log('the four apps answer /health/ready with 200');
    try {
      await walkThrough({ https: p.ports.https, http: p.ports.http });
    } catch (err) {
      await p.stop();
      process.stderr.write(`${output.join('\n')}\n`);
      throw err;
    }
    await p.stop();
    const exits = [...p.children].map(([app, child]) => `${app} ${child.signalCode ?? child.exitCode}`);
    const unclean = [...p.children].filter(([, child]) => child.exitCode !== 0);
    if (unclean.length) {
      process.stderr.write(`${output.join('\n')}\n`);
      throw new Error(`after SIGTERM: ${exits.join(', ')} (every app must exit with 0)`);
    }
    log(`stopped with SIGTERM: ${exits.join(', ')}`);
    log('passed');
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((err) => console.error(`clean-up: ${err.message}`));
    if (!process.env.KEEP) rmSync(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
}

main().catch((err) => {
  console.error(`deploy:install failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
