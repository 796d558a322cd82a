#!/usr/bin/env node
/**
 * Resumable uploads with slow clients (docs/benchmarks.md, "Resumable uploads with slow
 * clients"): the latency of tus POST, HEAD, PATCH and DELETE through the gateway, first on
 * an idle platform, then while BENCH_SLOW (50) PATCHes stay open, each sending
 * BENCH_SLOW_BYTES (128) bytes every 100 ms (above the default minimum body rate of 1024
 * bytes/s, so none is cut).
 *
 * Self-contained like bench:files: builds the apps (nx cache), starts them with
 * scripts/platform.cjs on throw-away databases, signs the bootstrap user in. The slow
 * chunks and the measured requests are the bootstrap user's (the caps on concurrent chunks
 * are raised for the run: with the default caps one caller holds at most 4).
 * Variables: BENCH_SLOW, BENCH_SLOW_BYTES, BENCH_ROUNDS (20 per worker, 3 workers),
 * BENCH_SKIP_BUILD=1, DATABASE_URL, NATS_URL. Writes .data/bench/slow-clients.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { benchPlans, buildApps, ROOT, runBench, signIn, startBenchPlatform } from '../bench-platform.mjs';

const SLOW = Number(process.env.BENCH_SLOW ?? 50);
const SLOW_BYTES = Number(process.env.BENCH_SLOW_BYTES ?? 128);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const WORKERS = 3;
const log = (msg) => console.log(`[bench:files:slow-clients] ${msg}`);
const cleanups = [];

/** One request to the gateway as records-api.localhost; `body` a Buffer, or a function that streams it. */
function call(gateway, token, method, p, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const req = request({
      host: gateway.hostname,
      port: gateway.port,
      method,
      path: p,
      servername: 'records-api.localhost',
      rejectUnauthorized: false,
      agent: false,
      headers: { host: 'records-api.localhost', authorization: `Bearer ${token}`, ...headers },
    });
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    if (typeof body === 'function') body(req);
    else req.end(body);
  });
}

const tus = (extra = {}) => ({ 'tus-resumable': '1.0.0', ...extra });
const metadata = (name) =>
  [
    ['fileName', name],
    ['correlationId', '260101120000'],
    ['fileType', 'document'],
    ['uploadTitle', 'Bench'],
  ]
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');

function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => +sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)].toFixed(1);
  return { requests: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) };
}

/** WORKERS callers' rounds of POST, HEAD, PATCH (half the upload), DELETE; every latency in ms. */
async function measure(gateway, token, uploads, label) {
  const samples = [];
  let files = 0;
  const timed = async (expected, ...args) => {
    const started = performance.now();
    const res = await call(gateway, token, ...args);
    samples.push(performance.now() - started);
    if (res.status !== expected) throw new Error(`${args[0]} answered ${res.status}: ${res.text}`);
    return res;
  };
  const chunk = Buffer.alloc(4096, 1);
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const created = await timed(
          201,
          'POST',
          uploads,
          tus({ 'upload-length': String(2 * chunk.length), 'upload-metadata': metadata(`${label}-${++files}.bin`) }),
        );
        const at = created.headers.location;
        await timed(200, 'HEAD', at, tus());
        await timed(204, 'PATCH', at, tus({ 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }), chunk);
        await timed(204, 'DELETE', at, tus());
      }
    }),
  );
  return summary(samples);
}

/** SLOW PATCHes that trickle SLOW_BYTES every 100 ms; answers their stop. */
async function openSlowChunks(gateway, token, uploads) {
  const stops = [];
  for (let i = 0; i < SLOW; i++) {
    const created = await call(
      gateway,
      token,
      'POST',
      uploads,
      tus({ 'upload-length': String(1 << 20), 'upload-metadata': metadata(`slow-${i}.bin`) }),
    );
    if (created.status !== 201) throw new Error(`slow creation answered ${created.status}: ${created.text}`);
    const headers = tus({
      'upload-offset': '0',
      'content-type': 'application/offset+octet-stream',
      'content-length': String(1 << 20),
    });
    const answered = call(gateway, token, 'PATCH', created.headers.location, headers, (req) => {
      const timer = setInterval(() => req.write(Buffer.alloc(SLOW_BYTES, 7)), 100);
      stops.push(() => {
        clearInterval(timer);
        req.destroy();
      });
    });
    answered.then((res) => log(`a slow chunk was answered ${res.status} (should stay open)`)).catch(() => undefined);
  }
  return () => stops.forEach((stop) => stop());
}

async function main() {
  buildApps(log);
  const work = mkdtempSync(path.join(tmpdir(), 'bench-slow-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  const p = await startBenchPlatform({
    name: 'slow',
    work,
    plans: benchPlans(() => undefined),
    env: { TUS_MAX_WRITES_PER_CALLER: '1000', TUS_MAX_WRITES_PER_TENANT: '1000', TUS_MAX_OPEN_UPLOADS: '1000' },
    cleanups,
    log,
  });
  const token = await signIn(p);
  const gateway = new URL(p.gatewayUrl);
  const vault = JSON.parse(
    (await call(gateway, token, 'POST', '/api/v1/vault', { 'content-type': 'application/json' }, '{}')).text,
  );
  const recordBody = JSON.stringify({
    name: 'Bench',
    description: '',
    recordTypeName: 'identityDocs',
    recordSubtypeName: 'passport',
  });
  const record = JSON.parse(
    (
      await call(
        gateway,
        token,
        'POST',
        `/api/v1/vault/vault-id/${vault.id}/records`,
        { 'content-type': 'application/json' },
        recordBody,
      )
    ).text,
  );
  const uploads = `/api/v1/vault/vault-id/${vault.id}/records/record-id/${record.id}/uploads`;

  log(`idle: ${WORKERS} workers x ${ROUNDS} rounds of POST, HEAD, PATCH, DELETE`);
  const idle = await measure(gateway, token, uploads, 'idle');
  log(`idle: ${JSON.stringify(idle)}`);
  log(`opening ${SLOW} slow PATCHes (${SLOW_BYTES * 10} bytes/s each)`);
  const stop = await openSlowChunks(gateway, token, uploads);
  await new Promise((r) => setTimeout(r, 2000));
  const loaded = await measure(gateway, token, uploads, 'loaded');
  stop();
  log(
    `with ${SLOW} slow PATCHes open: ${JSON.stringify(loaded)} (load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')})`,
  );
  const out = path.join(ROOT, '.data/bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(
    path.join(out, 'slow-clients.json'),
    JSON.stringify({ slow: SLOW, slowBytesPerSecond: SLOW_BYTES * 10, loadavg: loadavg(), idle, loaded }, null, 2),
  );
}

runBench(main, { cleanups, log, settleMs: 500 });
