#!/usr/bin/env node
/**
 * Encryption benchmark: the throughput of the age v1 file-body encryption of
 * records-service (capabilities/encryption: SealStream, OpenStream on node:crypto) against
 * a plain stream copy of the same file on the same disk and against Debian's age CLI, and
 * a 1 MiB range read from the middle of the file, plain and encrypted (only the chunks it
 * touches are read and decrypted). Also the peak RSS growth of each streaming pass.
 *
 * Variables: BENCH_FILE_MB (1024), BENCH_ROUNDS (3, the median is reported), BENCH_DIR
 * (work folder; a temp folder by default). Needs the age CLI (apt-get install age).
 * Writes .data/bench/crypto.json.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sizeMb = Number(process.env.BENCH_FILE_MB ?? 1024);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const dir = mkdtempSync(path.join(process.env.BENCH_DIR ?? tmpdir(), 'bench-crypto-'));

async function writeRandomFile(file, mb) {
  const out = createWriteStream(file);
  const block = randomBytes(1024 * 1024);
  for (let i = 0; i < mb; i++) {
    block[i % block.length] ^= i & 0xff; // not one block repeated: no store can shortcut it
    if (!out.write(Buffer.from(block))) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r, j) => out.end((err) => (err ? j(err) : r())));
}

try {
  const plain = path.join(dir, 'plain.bin');
  console.log(`writing a ${sizeMb} MiB file of random bytes in ${dir}`);
  await writeRandomFile(plain, sizeMb);
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '-r', 'ts-node/register/transpile-only', 'bench/crypto/measure.ts', plain, dir, String(rounds)],
    {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 1 << 20,
      env: { ...process.env, TS_NODE_PROJECT: 'apps/records-service/tsconfig.app.json' },
    },
  );
  if (child.status !== 0) throw new Error(`measure.ts failed:\n${child.stderr}`);
  const result = { date: new Date().toISOString(), cpus: cpus().length, cpuModel: cpus()[0]?.model, ...JSON.parse(child.stdout) };
  const copy = result.results[0].seconds;
  console.log(`\n${sizeMb} MiB, median of ${rounds} rounds`);
  for (const r of result.results) {
    console.log(
      `${r.name.padEnd(28)} ${r.seconds.toFixed(2).padStart(7)} s ${r.mibPerSecond.toFixed(0).padStart(6)} MiB/s ` +
        `${(copy / r.seconds).toFixed(2)}x copy  RSS +${r.rssGrowthMiB.toFixed(0)} MiB`,
    );
  }
  const { range } = result;
  console.log(
    `range read of ${range.bytes} bytes: plain ${range.plainMs.toFixed(1)} ms, encrypted ${range.encryptedMs.toFixed(1)} ms`,
  );
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  writeFileSync(path.join(ROOT, '.data/bench/crypto.json'), JSON.stringify(result, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
