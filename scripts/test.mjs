#!/usr/bin/env node
// `npm test`: every project's jest suite, one project at a time, then one closing line
// with the totals over all projects ("Tests: N passed, N failed"), read from the summary
// each jest run prints. Extra arguments go to Nx (for example --projects=gateway).
import { spawn } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';

const args = ['nx', 'run-many', '-t', 'test', '--parallel=1', '--outputStyle=stream', ...process.argv.slice(2)];
const child = spawn('npx', args, { stdio: ['inherit', 'pipe', 'pipe'] });

// Jest's summary line, e.g. "Tests:       1 failed, 2 skipped, 105 passed, 108 total".
const SUMMARY = /Tests:\s+((?:\d+ \w+, )*\d+ total)/;
const totals = { passed: 0, failed: 0, skipped: 0, suites: 0 };

function scan(stream, out) {
  let rest = '';
  stream.on('data', (chunk) => {
    out.write(chunk);
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const match = SUMMARY.exec(stripVTControlCharacters(line));
      if (!match) continue;
      totals.suites += 1;
      for (const part of match[1].split(', ')) {
        const [count, kind] = part.split(' ');
        if (kind in totals) totals[kind] += Number(count);
      }
    }
  });
}
scan(child.stdout, process.stdout);
scan(child.stderr, process.stderr);

child.on('close', (code, signal) => {
  const skipped = totals.skipped ? `, ${totals.skipped} skipped` : '';
  process.stdout.write(`\nProjects tested: ${totals.suites}\nTests: ${totals.passed} passed, ${totals.failed} failed${skipped}\n`);
  process.exit(code ?? (signal ? 1 : 0));
});
