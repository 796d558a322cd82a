/**
 * The measurements of bench/crypto/run.mjs, run in one Node process with the app's own
 * TypeScript modules (ts-node): stream copy, age seal and open, age CLI, range reads.
 * argv: <plain file> <work dir> <rounds>. Prints one JSON object.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { newEnvelope, openEnvelope } from '../../apps/records-service/src/capabilities/encryption/age-header';
import { OpenStream, SealStream, sealedRange } from '../../apps/records-service/src/capabilities/encryption/age-stream';
import {
  formatIdentity,
  formatRecipient,
  newSecretKey,
  publicKeyOf,
} from '../../apps/records-service/src/capabilities/encryption/x25519';

const [plainPath, dir, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg);
const size = statSync(plainPath).size;
const identity = newSecretKey();
const recipient = publicKeyOf(identity);
const MiB = 1024 * 1024;
const HIGH_WATER = 1 * MiB;

let rssPeak = 0;
const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 20);

async function timed(fn: () => Promise<unknown>): Promise<{ seconds: number; rssGrowthMiB: number }> {
  global.gc?.();
  const rest = process.memoryUsage.rss();
  rssPeak = rest;
  const t0 = process.hrtime.bigint();
  await fn();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return { seconds, rssGrowthMiB: Math.max(0, rssPeak - rest) / MiB };
}

const through = (src: string, t: Transform, dest: string) =>
  pipeline(createReadStream(src, { highWaterMark: HIGH_WATER }), t, createWriteStream(dest));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function best(name: string, fn: () => Promise<unknown>) {
  const runs = [];
  for (let i = 0; i < rounds; i++) runs.push(await timed(fn));
  const seconds = median(runs.map((r) => r.seconds));
  return { name, seconds, mibPerSecond: size / MiB / seconds, rssGrowthMiB: Math.max(...runs.map((r) => r.rssGrowthMiB)) };
}

async function readRange(path: string, start: number, end: number, t?: Transform): Promise<number> {
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  let n = 0;
  const count = new PassThrough().on('data', (c: Buffer) => (n += c.length));
  const src = createReadStream(path, { start, end, highWaterMark: HIGH_WATER });
  await (t ? pipeline(src, t, count, sink) : pipeline(src, count, sink));
  return n;
}

async function main() {
  const { envelope, key } = newEnvelope(recipient);
  const sealed = join(dir, 'sealed.obj');
  const results = [
    await best('plain stream copy', () => through(plainPath, new PassThrough(), join(dir, 'copy'))),
    await best('age seal (node:crypto)', () => through(plainPath, new SealStream(key), sealed)),
    await best('age open (node:crypto)', () =>
      through(sealed, new OpenStream(openEnvelope(envelope, identity)), join(dir, 'opened')),
    ),
  ];
  const ageFile = join(dir, 'whole.age');
  const fh = await openFile(ageFile, 'w');
  await fh.write(envelope);
  await fh.close();
  await pipeline(createReadStream(sealed), createWriteStream(ageFile, { flags: 'a' }));
  const idFile = join(dir, 'identity.txt');
  await pipeline(Readable.from([`${formatIdentity(identity)}\n`]), createWriteStream(idFile, { mode: 0o600 }));
  results.push(
    await best('age CLI encrypt', async () =>
      execFileSync('age', ['-r', formatRecipient(recipient), '-o', join(dir, 'cli.age'), plainPath]),
    ),
    await best('age CLI decrypt (our file)', async () =>
      execFileSync('age', ['-d', '-i', idFile, '-o', join(dir, 'cli.out'), ageFile]),
    ),
  );
  // Range reads: 1 MiB from the middle, plain file vs encrypted object (chunks touched only)
  const start = Math.floor(size / 2) + 12345;
  const end = Math.min(size - 1, start + MiB - 1);
  const plainTimes: number[] = [];
  const sealedTimes: number[] = [];
  for (let i = 0; i < 20; i++) {
    plainTimes.push((await timed(() => readRange(plainPath, start, end))).seconds);
    const r = sealedRange(size, start, end);
    const open = new OpenStream(openEnvelope(envelope, identity), r.options);
    sealedTimes.push((await timed(() => readRange(sealed, r.objectStart, r.objectEnd, open))).seconds);
  }
  clearInterval(sampler);
  const range = { bytes: end - start + 1, plainMs: median(plainTimes) * 1000, encryptedMs: median(sealedTimes) * 1000 };
  process.stdout.write(JSON.stringify({ size, rounds, results, range }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
