#!/usr/bin/env node
// `npm test`: every project's jest suite, two projects at a time, then one closing line
// with the totals over all projects ("Tests: N passed, N failed"), read from the summary
// each jest run prints. Extra arguments go to Nx (for example --projects=gateway, or
// --parallel=1 for one project at a time).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { stripVTControlCharacters } from 'node:util';

const nx = createRequire(import.meta.url).resolve('nx/bin/nx.js');
// Suites spend most of their time waiting on PostgreSQL, NATS, child processes and
// timers, and each uses its own databases, event namespaces and ephemeral ports: two
// projects side by side (Nx starts the longest first, from its task history) keep both
// CPUs busy without the suites meeting.
const extra = process.argv.slice(2);
const parallel = extra.some((a) => a.startsWith('--parallel')) ? [] : ['--parallel=2'];
const args = [nx, 'run-many', '-t', 'test', ...parallel, '--outputStyle=stream', ...extra];
// Output goes through pipes (to be read); keep the colours a terminal would get.
const env = process.stdout.isTTY && !process.env.NO_COLOR ? { ...process.env, FORCE_COLOR: '1' } : process.env;
const child = spawn(process.execPath, args, { stdio: ['inherit', 'pipe', 'pipe'], env });

// A stop request (CI time limit, Ctrl-C) reaches the test run too, so that suites end and
// drop their databases instead of running on without this process.
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const signal of SIGNALS) process.on(signal, () => child.kill(signal));

// Jest's summaries, e.g. "Tests:       1 failed, 2 skipped, 105 passed, 108 total" and
// "Test Suites: 1 failed, 4 passed, 5 total" (a suite that cannot load fails no test).
const SUMMARY = /(Tests|Test Suites):\s+((?:\d+ \w+, )*\d+ total)/;
const tests = { passed: 0, failed: 0, skipped: 0, todo: 0 };
let projects = 0;
let failedSuites = 0;

function scan(stream, out) {
  let rest = '';
  stream.on('data', (chunk) => {
    out.write(chunk);
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const match = SUMMARY.exec(stripVTControlCharacters(line));
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

child.on('error', (err) => {
  console.error(`npm test: could not start Nx: ${err.message}`);
  process.exit(1);
});

child.on('close', (code, signal) => {
  const skipped = tests.skipped + tests.todo;
  const lines = [`Projects tested: ${projects}`];
  if (failedSuites) lines.push(`Test suites that failed to run or had failing tests: ${failedSuites}`);
  if (code !== 0) lines.push(`Nx ${signal ? `stopped by ${signal}` : `exited with ${code}`}: the run failed`);
  lines.push(`Tests: ${tests.passed} passed, ${tests.failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.stdout.write(`\n${lines.join('\n')}\n`);
  if (signal) {
    for (const s of SIGNALS) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
