#!/usr/bin/env node
// `npm test`: every project's jest suite, two projects at a time, then one closing line
// with the totals over all projects ("Tests: N passed, N failed"), read from the summary
// each jest run prints. Extra arguments go to Nx (for example --projects=gateway, or
// --parallel=1 for one project at a time).
//
// The suites use the PostgreSQL at TEST_DATABASE_ADMIN_URL and the NATS at NATS_URL
// (127.0.0.1:5432 and 127.0.0.1:4222 by default). When nothing answers at one of them,
// this run starts its own, as `npm start` does: an embedded PostgreSQL and a local
// nats-server with JetStream (when one is installed; else one line says what to install),
// each on a free port with its data in a temporary folder, passes their addresses to the
// suites in those two variables, and stops them at the end.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { address, findNatsServer, NATS_SERVER_INSTALL, startEmbeddedPostgres, startNatsServer } from './local-services.mjs';

const require = createRequire(import.meta.url);
const nx = require.resolve('nx/bin/nx.js');
const platform = require('./platform.cjs');
const note = (line) => console.log(`npm test: ${line}`);

// A throwaway cluster: what a crash of the machine would lose is never needed again.
const THROWAWAY_PG = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
const NATS_SERVER_DEFAULT = '/usr/sbin/nats-server'; // what the suites' own servers run without NATS_SERVER_BIN

/** PostgreSQL and NATS for the suites: { env (to add to theirs), stop() }. */
async function services() {
  const env = {};
  const stops = [];
  const stop = async () => {
    for (const fn of stops.splice(0).reverse()) await fn().catch((err) => console.error(`npm test: ${err.message ?? err}`));
  };
  try {
    const pgUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const pg = address(pgUrl, 5432);
    if (!(await platform.canConnect(pg.host, pg.port))) {
      const port = await platform.freePort();
      const what = `an embedded PostgreSQL on 127.0.0.1:${port} for this run`;
      note(`nothing answers at ${pg.host}:${pg.port} (TEST_DATABASE_ADMIN_URL): ${what}`);
      const dir = mkdtempSync(join(tmpdir(), 'vault-test-postgres-'));
      const server = await startEmbeddedPostgres({ dir, port, persistent: false, flags: THROWAWAY_PG });
      stops.push(server.stop);
      env.TEST_DATABASE_ADMIN_URL = server.url;
    }
    // Some suites start nats-servers of their own (to stop and restart them).
    const bin = findNatsServer();
    if (bin && !process.env.NATS_SERVER_BIN && bin !== NATS_SERVER_DEFAULT) env.NATS_SERVER_BIN = bin;
    const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
    const nats = address(natsUrl, 4222);
    const natsAnswers = await platform.canConnect(nats.host, nats.port);
    if (!bin) {
      const fails = natsAnswers
        ? 'no nats-server is installed, so the specs that start their own NATS fail'
        : `nothing answers at ${nats.host}:${nats.port} (NATS_URL) and no nats-server is installed, so the suites that use NATS fail`;
      note(`${fails}: ${NATS_SERVER_INSTALL}`);
    } else if (!natsAnswers) {
      const port = await platform.freePort();
      note(`nothing answers at ${nats.host}:${nats.port} (NATS_URL): ${bin} with JetStream on 127.0.0.1:${port} for this run`);
      const dir = mkdtempSync(join(tmpdir(), 'vault-test-nats-'));
      const server = await startNatsServer({ bin, port, dir, persistent: false });
      stops.push(server.stop);
      env.NATS_URL = server.url;
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { env, stop };
}

// A stop request (CI time limit, Ctrl-C) reaches the test run too, so that suites end and
// drop their databases instead of running on without this process; one that comes while
// PostgreSQL or NATS start stops them once started.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let stopRequest;
const remember = (signal) => (stopRequest ??= signal);
for (const signal of SIGNALS) process.on(signal, remember);

function raise(signal) {
  for (const s of SIGNALS) process.removeAllListeners(s);
  process.kill(process.pid, signal);
}

let local;
try {
  local = await services();
} catch (err) {
  console.error(`npm test: could not start PostgreSQL or NATS: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
}
if (stopRequest) {
  await local.stop();
  raise(stopRequest);
}
// Suites spend most of their time waiting on PostgreSQL, NATS, child processes and
// timers, and each uses its own databases, event namespaces and ephemeral ports: two
// projects side by side (Nx starts the longest first, from its task history) keep both
// CPUs busy without the suites meeting.
const extra = process.argv.slice(2);
const parallel = extra.some((a) => a.startsWith('--parallel')) ? [] : ['--parallel=2'];
const args = [nx, 'run-many', '-t', 'test', ...parallel, '--outputStyle=stream', ...extra];
// Output goes through pipes (to be read); keep the colours a terminal would get.
const env = { ...process.env, ...local.env, ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {}) };
const child = spawn(process.execPath, args, { stdio: ['inherit', 'pipe', 'pipe'], env });
for (const signal of SIGNALS) {
  process.off(signal, remember);
  process.on(signal, () => child.kill(signal));
}

// Jest's summaries, e.g. "Tests:       1 failed, 2 skipped, 105 passed, 108 total" and
// "Test Suites: 1 failed, 4 passed, 5 total" (a suite that cannot load fails no test).
const SUMMARY = /(Tests|Test Suites):\s+((?:\d+ \w+, )*\d+ total)/;
const tests = { passed: 0, failed: 0, skipped: 0, todo: 0 };
let projects = 0;
let failedSuites = 0;
// Jest's failure headers ("● suite › test"), with the project's prefix: repeated in the
// closing lines, since a long run's log is often read from its end. Each once: jest prints
// them again in its summary of failing tests.
const FAILURE = /^(\S+:)?\s*● (?!Console)(.+)$/;
const failures = new Set();

function scan(stream, out) {
  let rest = '';
  stream.on('data', (chunk) => {
    out.write(chunk);
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const plain = stripVTControlCharacters(line);
      const failure = FAILURE.exec(plain);
      if (failure && failures.size < 50) failures.add(`${failure[1] ?? ''} ${failure[2]}`.trim());
      const match = SUMMARY.exec(plain);
      if (!match) continue;
      const counts = Object.fromEntries(match[2].split(', ').map((part) => part.split(' ').reverse()));
      if (match[1] === 'Test Suites') {
        failedSuites += Number(counts.failed ?? 0);
        continue;
      }
      projects += 1;
      for (const kind of Object.keys(tests)) tests[kind] += Number(counts[kind] ?? 0);
    }
  });
}
scan(child.stdout, process.stdout);
scan(child.stderr, process.stderr);

child.on('error', async (err) => {
  console.error(`npm test: could not start Nx: ${err.message}`);
  await local.stop();
  process.exit(1);
});

child.on('close', async (code, signal) => {
  await local.stop();
  const skipped = tests.skipped + tests.todo;
  const lines = [`Projects tested: ${projects}`];
  if (failedSuites) lines.push(`Test suites that failed to run or had failing tests: ${failedSuites}`);
  if (failures.size) lines.push('Failed:', ...[...failures].map((f) => `  ${f}`));
  if (code !== 0) lines.push(`Nx ${signal ? `stopped by ${signal}` : `exited with ${code}`}: the run failed`);
  lines.push(`Tests: ${tests.passed} passed, ${tests.failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (signal) return raise(signal);
  process.exit(code ?? 1);
});
