#!/usr/bin/env node
/**
 * Record files benchmark: a large upload and download through the gateway
 * (HTTPS, Host records-api.localhost) into records-service with the filesystem
 * storage, against a plain disk copy (`cp`) of the same file on the same disk.
 * Samples the resident memory of the gateway and records-service from
 * /proc/<pid>/status every 50 ms and reports each process's peak growth over
 * its resting size. Runs one transfer, then BENCH_PARALLEL transfers at once.
 *
 * Self-contained: builds the four apps (nx cache) and starts them with
 * scripts/platform.cjs on free ports, with throw-away databases on the server of
 * DATABASE_URL and NATS from NATS_URL, a bootstrap file for the token (developer
 * module) and a plans file whose default plan allows the file size.
 *
 * Also measures a bare TLS pipe between two Node processes (tls-pipe.mjs), the ceiling
 * of the TLS leg on this machine, and the CPU seconds per GiB each process spent.
 *
 * The transfers are made by curl (as an API user would, and it spends far less CPU on
 * the shared 2 vCPUs than a Node client); BENCH_CLIENT=node uses a Node https client.
 *
 * Variables: BENCH_FILE_MB (1024), BENCH_PARALLEL (4), BENCH_ROUNDS (3), BENCH_CLIENT,
 * BENCH_DIR (folder for the test file, its copies and the storage; a temp folder
 * on the system disk by default), BENCH_SKIP_BUILD=1, BENCH_APP_LOG (a folder where each
 * app's output goes), BENCH_NODE_ARGS (node flags for the gateway and records-service,
 * e.g. --trace-gc), DATABASE_URL, NATS_URL; with --resumable also BENCH_TUS_CHUNK_MB (8) and
 * BENCH_VARIANTS (`;`-separated variant names as printed, `floor` for the hand-written
 * floor of chunk-floor.mjs: only those are measured).
 * Writes .data/bench/files.json.
 *
 * --encryption (`npm run bench:files:encryption`): the same build started with
 * ENCRYPTION_AT_REST=plaintext and with encryption on (the default), alternating, ROUNDS
 * times each (the order swapped every round); for each start: one upload and one download
 * of the test file through the gateway (RSS growth sampled as above), and BENCH_RANGES
 * (20) reads of 1 MiB at random offsets of the stored file (Range, curl). Both starts run
 * with NODE_ENV=development, since the plaintext switch is refused in production. Writes
 * .data/bench/files-encryption.json.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { startNginx } from './nginx.mjs';
import {
  curl,
  curlCpuSeconds,
  curlTusUpload,
  measureChunkFsync,
  measureSha256,
  splitIntoChunks,
  tusUpload,
  writeAuthFile,
} from './resumable.mjs';
import { tlsPipe } from './tls-pipe.mjs';
import { chunkFloor } from './chunk-floor.mjs';
import {
  benchPlans,
  buildApps,
  CLIENT,
  cpuMsOf,
  PG_SERVER,
  platform,
  ROOT,
  rssMiBOf,
  SECRET,
  startBenchPlatform,
  TENANT,
  USER,
} from '../bench-platform.mjs';

const MiB = 1024 * 1024;
const FILE_MB = Number(process.env.BENCH_FILE_MB ?? 1024);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENT_KIND = process.env.BENCH_CLIENT ?? (spawnSync('curl', ['--version']).status === 0 ? 'curl' : 'node');
if (!['curl', 'node'].includes(CLIENT_KIND)) throw new Error(`BENCH_CLIENT must be curl or node, not ${CLIENT_KIND}`);
const RESUMABLE = process.argv.includes('--resumable');
const ENCRYPTION = process.argv.includes('--encryption');
const RANGES = Number(process.env.BENCH_RANGES ?? 20);
const TUS_CHUNK_MB = Number(process.env.BENCH_TUS_CHUNK_MB ?? 8);
/** BENCH_VARIANTS: the resumable run's variants to measure, `;`-separated names as printed (all by default). */
const ONLY = process.env.BENCH_VARIANTS?.split(';').map((v) => v.trim());

const log = (msg) => console.log(`[bench:files] ${msg}`);
const cleanups = [];
const mib = (bytes) => +(bytes / MiB).toFixed(1);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function main() {
  buildApps(log);
  const work = mkdtempSync(path.join(process.env.BENCH_DIR ?? tmpdir(), 'bench-files-'));
  cleanups.push(async () => rmSync(work, { recursive: true, force: true }));
  const file = await writeSourceFile(work);
  if (ENCRYPTION) return compareEncryption(work, file);
  const disk = measureDiskCopies(work, file);
  const p = await startPlatform(work);
  const api = apiClient(p.gatewayUrl);
  const pids = { gateway: p.children.get('gateway').pid, 'records-service': p.children.get('records-service').pid };
  const files = await createRecord(api);
  if (RESUMABLE) {
    const port = p.ports['records-service'];
    const resumable = await measureResumable({ api, pids, files, work, file, gatewayUrl: p.gatewayUrl, port });
    return writeResumableReport({ work, file, disk, resumable });
  }
  const tlsRuns = await measureTlsPipe(work, file);
  const runs = await measureThroughGateway({ api, pids, files, work, file });
  const directRuns = await measureDirect({ api, pids, files, work, file, port: p.ports['records-service'] });
  writeReport({ work, file, disk, tlsRuns, runs, directRuns, pids });
}

/** The test file of random bytes: its path, size and SHA-256. */
async function writeSourceFile(work) {
  const source = path.join(work, 'source.bin');
  log(`writing a ${FILE_MB} MiB test file`);
  const sha256 = await writeRandomFile(source, FILE_MB * MiB);
  return { source, size: statSync(source).size, sha256 };
}

/** The yardsticks: `cp` of the test file on the same disk, and `cp` followed by `sync`. */
function measureDiskCopies(work, { source, size }) {
  log('plain disk copy (cp)');
  const copies = [];
  for (let i = 0; i < ROUNDS + 1; i++) {
    const target = path.join(work, `copy-${i}.bin`);
    const started = process.hrtime.bigint();
    const r = spawnSync('cp', [source, target]);
    if (r.status !== 0) throw new Error('cp failed');
    copies.push(seconds(started));
    rmSync(target);
  }
  const cpSeconds = median(copies.slice(1)); // the first copy warms the cache like the first upload
  const copyMiBs = mib(size) / cpSeconds;
  log(`cp: ${copyMiBs.toFixed(0)} MiB/s (median of ${copies.length - 1}, ${copies.map((s) => s.toFixed(2)).join(' s, ')} s)`);
  // The filesystem storage flushes each file to disk before it is visible; cp does not.
  const synced = [];
  for (let i = 0; i < ROUNDS; i++) {
    const target = path.join(work, `synced-${i}.bin`);
    const started = process.hrtime.bigint();
    const r = spawnSync('sh', ['-c', 'cp "$1" "$2" && sync "$2"', 'sh', source, target]);
    if (r.status !== 0) throw new Error('cp + sync failed');
    synced.push(seconds(started));
    rmSync(target);
  }
  const syncedMiBs = mib(size) / median(synced);
  log(`cp + sync: ${syncedMiBs.toFixed(0)} MiB/s`);
  return { copies, copyMiBs, synced, syncedMiBs };
}

/**
 * The four apps on throw-away databases, with a bootstrap file for the token and a
 * plans file whose default plan allows the file size; app output to BENCH_APP_LOG.
 */
async function startPlatform(work) {
  const plans = benchPlans((features) => {
    features['vault.maxUploadMBs'] = String(Math.ceil(FILE_MB * 1.1));
    features['vault.maxVaultGBs'] = String(Math.ceil((FILE_MB * (PARALLEL + 1)) / 1024) + 1);
  });
  log(`transfers by ${CLIENT_KIND}`);
  const appLog = process.env.BENCH_APP_LOG;
  const appLogs = new Map();
  if (appLog) mkdirSync(appLog, { recursive: true });
  const appLogOf = (app) => {
    if (!appLogs.has(app)) appLogs.set(app, createWriteStream(path.join(appLog, `${app}.log`)));
    return appLogs.get(app);
  };
  cleanups.push(async () => {
    for (const stream of appLogs.values()) stream.end();
  });
  return startBenchPlatform({
    name: 'files',
    work,
    plans,
    cleanups,
    log,
    env: { UPSTREAM_TIMEOUT_MS: '600000' },
    nodeArgs: process.env.BENCH_NODE_ARGS
      ? Object.fromEntries(
          ['gateway', 'records-service'].map((app) => [app, process.env.BENCH_NODE_ARGS.split(/\s+/).filter(Boolean)]),
        )
      : undefined,
    onOutput: (app, line) => {
      if (appLog) appLogOf(app).write(`${line}\n`);
      if (/ERROR|WARN|Error/.test(line)) console.log(`  [${app}] ${line}`);
    },
  });
}

/**
 * Encrypted vs plaintext on one build: the platform started with ENCRYPTION_AT_REST=on and
 * =plaintext in turn, each measured for an upload, a download and 1 MiB range reads.
 */
async function compareEncryption(work, file) {
  const runs = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const modes = round % 2 === 1 ? ['plaintext', 'on'] : ['on', 'plaintext'];
    for (const mode of modes) {
      const dir = path.join(work, `enc-${round}-${mode}`);
      mkdirSync(dir, { recursive: true });
      const at = cleanups.length;
      const p = await startBenchPlatform({
        name: `filesenc_${mode}_${round}`,
        work: dir,
        plans: benchPlans((features) => {
          features['vault.maxUploadMBs'] = String(Math.ceil(FILE_MB * 1.1));
          features['vault.maxVaultGBs'] = String(Math.ceil((FILE_MB * 2) / 1024) + 1);
        }),
        cleanups,
        log,
        env: {
          UPSTREAM_TIMEOUT_MS: '600000',
          NODE_ENV: 'development',
          ENCRYPTION_AT_REST: mode,
          ENCRYPTION_JOB_INTERVAL_MS: '0',
        },
      });
      const stop = cleanups.length > at ? cleanups[0] : async () => undefined;
      try {
        const api = apiClient(p.gatewayUrl);
        const pids = { gateway: p.children.get('gateway').pid, 'records-service': p.children.get('records-service').pid };
        const files = await createRecord(api);
        const name = 'bench-enc.bin';
        const up = await sampled(pids, () => api.upload(`${files}?${query(name)}`, file.source, file.size, file.sha256));
        const target = path.join(dir, 'down.bin');
        const down = await sampled(pids, () => api.download(`${files}/${name}`, target, file.size));
        rmSync(target, { force: true });
        const stored = statSync(path.join(dir, 'storage')).isDirectory() ? storedBytes(path.join(dir, 'storage')) : 0;
        const ranges = [];
        for (let i = 0; i < RANGES; i++) {
          const start = Math.floor(Math.random() * Math.max(1, file.size - MiB));
          ranges.push(await rangeSeconds(api, `${files}/${name}`, start, Math.min(file.size, start + MiB) - 1));
        }
        const run = {
          round,
          mode,
          upload: summary(up, file.size),
          download: summary(down, file.size),
          rangeMedianMs: +(median(ranges) * 1000).toFixed(1),
          storedBytes: stored,
        };
        runs.push(run);
        log(
          `round ${round}, encryption ${mode}: upload ${run.upload.MiBs} MiB/s, download ${run.download.MiBs} MiB/s, ` +
            `1 MiB range ${run.rangeMedianMs} ms (median of ${RANGES}); RSS growth up ` +
            `${JSON.stringify(run.upload.rssGrowthMiB)} down ${JSON.stringify(run.download.rssGrowthMiB)} MiB`,
        );
      } finally {
        await stop();
        const i = cleanups.indexOf(stop);
        if (i >= 0) cleanups[i] = async () => undefined;
      }
    }
  }
  const of = (mode, pick) => median(runs.filter((r) => r.mode === mode).map(pick));
  const ratio = (pick) => +(of('on', pick) / of('plaintext', pick)).toFixed(2);
  const report = {
    fileMiB: mib(file.size),
    rounds: ROUNDS,
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
    cpus: cpus().length,
    runs,
    encryptedOverPlaintext: {
      upload: ratio((r) => r.upload.MiBs),
      download: ratio((r) => r.download.MiBs),
      range1MiBTime: ratio((r) => r.rangeMedianMs),
    },
  };
  log(
    `encrypted / plaintext (medians): upload ${report.encryptedOverPlaintext.upload}x, download ` +
      `${report.encryptedOverPlaintext.download}x (goal >= 0.8); 1 MiB range time ${report.encryptedOverPlaintext.range1MiBTime}x (goal < 2)`,
  );
  const out = path.join(ROOT, '.data', 'bench', 'files-encryption.json');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${out}`);
}

/** Bytes stored under a storage folder (objects and unfinished writes). */
function storedBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath ?? entry.path, entry.name)).size;
  }
  return total;
}

/** Seconds for one Range read of bytes start..end through the gateway (curl, body discarded). */
async function rangeSeconds(api, p, start, end) {
  const started = process.hrtime.bigint();
  await api.range(p, start, end);
  return seconds(started);
}

/** Signs in (the token stays on `api`), creates a vault and a record; returns the record's files path. */
async function createRecord(api) {
  const auth = await api.json(
    'developer-api',
    'POST',
    `/api/v1/tenant/tenant-id/${TENANT}/applications/client-id/${CLIENT}/auth`,
    {
      clientSecret: SECRET,
      ...USER,
    },
  );
  if (auth.status !== 200) throw new Error(`auth answered ${auth.status}: ${JSON.stringify(auth.body)}`);
  api.token = auth.body.access_token;
  const vault = await api.json('records-api', 'POST', '/api/v1/vault', {});
  if (vault.status !== 201) throw new Error(`vault create answered ${vault.status}: ${JSON.stringify(vault.body)}`);
  const record = await api.json('records-api', 'POST', `/api/v1/vault/vault-id/${vault.body.id}/records`, {
    name: 'Bench record',
    description: '',
    recordTypeName: 'identityDocs',
    recordSubtypeName: 'passport',
  });
  if (record.status !== 200) throw new Error(`record create answered ${record.status}: ${JSON.stringify(record.body)}`);
  return `/api/v1/vault/vault-id/${vault.body.id}/records/record-id/${record.body.id}/record-files`;
}

/** The machine's ceiling for the TLS leg alone (the gateway's certificate, default ciphers). */
async function measureTlsPipe(work, { size }) {
  const tlsRuns = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const certs = path.join(work, 'certs');
    tlsRuns.push(
      await tlsPipe({ certFile: path.join(certs, 'gateway.crt'), keyFile: path.join(certs, 'gateway.key'), bytes: size }),
    );
  }
  log(`bare TLS pipe (${tlsRuns[0].protocol} ${tlsRuns[0].cipher}): ${tlsRuns.map((r) => r.MiBs).join(' / ')} MiB/s`);
  return tlsRuns;
}

/** Uploads and downloads through the gateway, one at a time and then PARALLEL at once. */
async function measureThroughGateway({ api, pids, files, work, file: { source, size, sha256 } }) {
  const runs = [];
  for (const n of [1, PARALLEL]) {
    for (let round = 1; round <= ROUNDS; round++) {
      const names = Array.from({ length: n }, (_, i) => `bench-${n}-${round}-${i}.bin`);
      const up = await sampled(pids, () =>
        Promise.all(names.map((name) => api.upload(`${files}?${query(name)}`, source, size, sha256))),
      );
      const down = await sampled(pids, () =>
        Promise.all(
          names.map((name) => api.download(`${files}/${encodeURIComponent(name)}`, path.join(work, `${name}.down`), size)),
        ),
      );
      for (const name of names) {
        rmSync(path.join(work, `${name}.down`), { force: true });
        const del = await api.json('records-api', 'DELETE', `${files}/${encodeURIComponent(name)}`);
        if (del.status !== 200) throw new Error(`delete answered ${del.status}`);
      }
      const run = { transfers: n, round, upload: summary(up, n * size), download: summary(down, n * size) };
      runs.push(run);
      log(
        `${n} at once, round ${round}: upload ${run.upload.MiBs} MiB/s, download ${run.download.MiBs} MiB/s; ` +
          `RSS growth up ${JSON.stringify(run.upload.rssGrowthMiB)} down ${JSON.stringify(run.download.rssGrowthMiB)} MiB; ` +
          `CPU s/GiB up ${JSON.stringify(run.upload.cpuSecondsPerGiB)} down ${JSON.stringify(run.download.cpuSecondsPerGiB)}`,
      );
    }
  }
  return runs;
}

/** The same single transfer straight to records-service (no TLS, no proxy): where the time goes. */
async function measureDirect({ api, pids, files, work, file: { source, size, sha256 }, port }) {
  const direct = apiClient(`http://127.0.0.1:${port}`);
  direct.token = api.token;
  const directRuns = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const name = `direct-${round}.bin`;
    const up = await sampled(pids, () => direct.upload(`${files}?${query(name)}`, source, size, sha256));
    const down = await sampled(pids, () => direct.download(`${files}/${name}`, path.join(work, `${name}.down`), size));
    rmSync(path.join(work, `${name}.down`), { force: true });
    await direct.json('records-api', 'DELETE', `${files}/${name}`);
    directRuns.push({ upload: summary(up, size), download: summary(down, size) });
    log(
      `direct to records-service, round ${round}: upload ${directRuns.at(-1).upload.MiBs} MiB/s, download ${directRuns.at(-1).download.MiBs} MiB/s; ` +
        `CPU s/GiB up ${JSON.stringify(directRuns.at(-1).upload.cpuSecondsPerGiB)} down ${JSON.stringify(directRuns.at(-1).download.cpuSecondsPerGiB)}`,
    );
  }
  return directRuns;
}

/**
 * Round by round on the same file: multipart and resumable uploads through the gateway and
 * straight to records-service, and the nginx PUT reference (then `sync` of what it wrote).
 */
async function measureResumable({ api, pids, files, work, file: { source, size, sha256 }, gatewayUrl, port }) {
  const certs = path.join(work, 'certs');
  const nginx = await startNginx({
    dir: path.join(work, 'nginx'),
    port: await platform.freePort(),
    certFile: path.join(certs, 'gateway.crt'),
    keyFile: path.join(certs, 'gateway.key'),
  });
  if (nginx) cleanups.unshift(() => nginx.stop());
  log(
    nginx ? `nginx ${nginx.version} on ${nginx.url}` : 'nginx is not installed (apt-get install nginx-light): its row is skipped',
  );
  const direct = apiClient(`http://127.0.0.1:${port}`);
  direct.token = api.token;
  const uploads = files.replace(/\/record-files$/, '/uploads');
  const gatewayPort = new URL(gatewayUrl).port;
  const endpoints = {
    gateway: `https://records-api.localhost:${gatewayPort}${uploads}`,
    direct: `http://127.0.0.1:${port}${uploads}`,
  };
  const chunkSize = TUS_CHUNK_MB * MiB;
  const pieces = splitIntoChunks({ source, chunkSize, dir: path.join(work, 'chunks') });
  const authFile = writeAuthFile(path.join(work, 'tus-curl'), api.token);
  const fsync = measureChunkFsync({ file: path.join(work, 'fsync.bin'), chunkSize, chunks: Math.ceil(size / chunkSize) });
  const sha256Cost = await measureSha256();
  log(
    `SHA-256 CPU s/GiB: node:crypto ${sha256Cost.nodeCryptoCpuSecondsPerGiB}, hash-wasm (the former resumable design) ${sha256Cost.hashWasmCpuSecondsPerGiB}`,
  );
  log(
    `disk: ${TUS_CHUNK_MB} MiB writes ${fsync.writeMiBs} MiB/s, with fdatasync each ${fsync.writeFdatasyncMiBs} MiB/s (${fsync.writeFdatasyncMsPerChunk} ms per chunk)`,
  );
  const variants = {
    'multipart, gateway': (name) => api.upload(`${files}?${query(name)}`, source, size, sha256),
    'resumable, gateway': (name) =>
      tusUpload({ endpoint: endpoints.gateway, token: api.token, source, size, sha256, fileName: name, chunkSize }),
    'multipart, direct': (name) => direct.upload(`${files}?${query(name)}`, source, size, sha256),
    'resumable, direct': (name) =>
      tusUpload({ endpoint: endpoints.direct, token: api.token, source, size, sha256, fileName: name, chunkSize }),
    'resumable (curl), gateway': (name) =>
      curlTusUpload({ endpoint: endpoints.gateway, authFile, pieces, size, sha256, fileName: name }),
    'resumable (curl), direct': (name) =>
      curlTusUpload({ endpoint: endpoints.direct, authFile, pieces, size, sha256, fileName: name }),
  };
  const runs = [];
  const floor = [];
  const chosen = Object.entries(variants).filter(([variant]) => !ONLY || ONLY.includes(variant));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [variant, send] of chosen) {
      const name = `${variant.replace(/\W+/g, '-')}-${round}.bin`;
      let result;
      const s = await sampled(pids, async () => (result = await send(name)));
      const del = await api.json('records-api', 'DELETE', `${files}/${encodeURIComponent(name)}`);
      if (del.status !== 200) throw new Error(`delete answered ${del.status}`);
      const run = { variant, round, ...summary(s, size) };
      if (result?.timings) run.chunks = chunkTimings(result.timings);
      runs.push(run);
      log(
        `${variant}, round ${round}: ${run.MiBs} MiB/s; RSS growth ${JSON.stringify(run.rssGrowthMiB)} MiB; CPU s/GiB ${JSON.stringify(run.cpuSecondsPerGiB)}` +
          (run.chunks ? `; PATCH median ${run.chunks.patchMedianMs} ms, gaps ${run.chunks.gapMedianMs} ms` : ''),
      );
    }
    if (nginx && (!ONLY || ONLY.includes('nginx PUT'))) {
      const name = `nginx-${round}.bin`;
      const s = await sampled(nginx.pids(), async () => {
        const status = await curl(['-T', source, '-o', '/dev/null', '-w', '%{http_code}', `${nginx.url}${name}`]);
        if (!['201', '204'].includes(status.trim())) throw new Error(`nginx PUT answered ${status}`);
      });
      const stored = path.join(nginx.root, name);
      if (statSync(stored).size !== size) throw new Error('nginx stored a different size');
      const syncStarted = process.hrtime.bigint();
      spawnSync('sync', [stored]);
      const syncSeconds = seconds(syncStarted);
      rmSync(stored);
      const run = { variant: 'nginx PUT', round, ...summary(s, size), syncSeconds: +syncSeconds.toFixed(2) };
      run.withSyncMiBs = +(mib(size) / (s.seconds + syncSeconds)).toFixed(0);
      runs.push(run);
      log(
        `nginx PUT, round ${round}: ${run.MiBs} MiB/s (${run.withSyncMiBs} with sync); RSS growth ${JSON.stringify(run.rssGrowthMiB)} MiB; CPU s/GiB ${JSON.stringify(run.cpuSecondsPerGiB)}`,
      );
    }
    if (!ONLY || ONLY.includes('floor')) {
      const figures = await chunkFloor({ source, size, pieces, databaseUrl: PG_SERVER, dir: path.join(work, 'floor') });
      floor.push({ round, MiBs: figures });
      log(`hand-written floor, round ${round}: ${JSON.stringify(figures)} MiB/s`);
    }
  }
  return { runs, floor, fsync, sha256Cost, nginx: nginx ? { version: nginx.version } : null };
}

function chunkTimings({ post, patch, gaps }) {
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  return {
    count: patch.length,
    postMs: +post.toFixed(1),
    patchMedianMs: +median(patch).toFixed(1),
    patchMaxMs: +Math.max(...patch).toFixed(1),
    lastPatchMs: +patch.at(-1).toFixed(1),
    patchTotalSeconds: +(sum(patch) / 1000).toFixed(2),
    gapMedianMs: gaps.length ? +median(gaps).toFixed(2) : null, // curl's gaps are its own, not measured
    gapTotalSeconds: +(sum(gaps) / 1000).toFixed(2),
  };
}

/**
 * Medians of the hand-written floor's variants and the ratio of its durable chunks (fsync +
 * offset committed) to its one-request upload, per round and overall (null when not run).
 */
function floorSummary(floor) {
  if (!floor.length) return null;
  const names = Object.keys(floor[0].MiBs);
  const [oneRequest, durable] = names;
  const roundRatios = floor.map((r) => +(r.MiBs[durable] / r.MiBs[oneRequest]).toFixed(2));
  return {
    medianMiBs: Object.fromEntries(names.map((n) => [n, median(floor.map((r) => r.MiBs[n]))])),
    durableChunksToOneRequest: median(roundRatios),
    roundRatios,
  };
}

/** Writes .data/bench/files-resumable.json and prints the figures against the goals. */
function writeResumableReport({ work, file: { size }, disk, resumable: { runs, floor, fsync, sha256Cost, nginx } }) {
  const of = (variant) => runs.filter((r) => r.variant === variant);
  const variants = [...new Set(runs.map((r) => r.variant))];
  const medians = Object.fromEntries(variants.map((v) => [v, median(of(v).map((r) => r.MiBs))]));
  const peak = Object.fromEntries(
    variants.map((v) => {
      const apps = Object.keys(of(v)[0].rssGrowthMiB);
      return [v, Object.fromEntries(apps.map((app) => [app, Math.max(...of(v).map((r) => r.rssGrowthMiB[app]))]))];
    }),
  );
  const ratio = (a, b) => (medians[a] && medians[b] ? +(medians[a] / medians[b]).toFixed(2) : null);
  const goals = {
    resumableToMultipart: { ratio: ratio('resumable, gateway', 'multipart, gateway'), goal: 0.9 },
    curlResumableToMultipart: { ratio: ratio('resumable (curl), gateway', 'multipart, gateway'), goal: 0.9 },
    multipartToNginx: { ratio: ratio('multipart, gateway', 'nginx PUT'), goal: 0.5 },
    rssGrowthUnder128MiB: { peak: { gateway: 0, 'records-service': 0 }, goal: 128 },
  };
  for (const v of variants.filter((x) => x !== 'nginx PUT'))
    for (const app of Object.keys(goals.rssGrowthUnder128MiB.peak))
      goals.rssGrowthUnder128MiB.peak[app] = Math.max(goals.rssGrowthUnder128MiB.peak[app], peak[v][app]);
  for (const g of Object.values(goals))
    g.met = g.ratio === null ? null : g.ratio !== undefined ? g.ratio >= g.goal : Math.max(...Object.values(g.peak)) < g.goal;
  const report = {
    date: new Date().toISOString(),
    fileMiB: mib(size),
    chunkMiB: TUS_CHUNK_MB,
    rounds: ROUNDS,
    machine: {
      loadAverage: loadavg().map((l) => +l.toFixed(2)),
      disk: spawnSync('df', ['-h', work]).stdout.toString().trim().split('\n').pop(),
      node: process.version,
    },
    nginx,
    copy: { MiBs: +disk.copyMiBs.toFixed(0) },
    copyWithSync: { MiBs: +disk.syncedMiBs.toFixed(0) },
    chunkFsync: fsync,
    sha256Cost,
    medianMiBs: medians,
    nginxWithSyncMiBs: nginx ? median(of('nginx PUT').map((r) => r.withSyncMiBs)) : null,
    floor: floorSummary(floor),
    goals,
    peakRssGrowthMiB: peak,
    runs,
  };
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  const out = path.join(ROOT, '.data/bench/files-resumable.json');
  writeFileSync(out, JSON.stringify(report, null, 2));
  console.log('');
  console.log(`file ${report.fileMiB} MiB, resumable chunks ${TUS_CHUNK_MB} MiB, ${ROUNDS} rounds (medians)`);
  for (const v of variants) console.log(`${v}: ${medians[v]} MiB/s; peak RSS growth ${JSON.stringify(peak[v])} MiB`);
  if (!nginx) console.log('nginx PUT: skipped (nginx is not installed)');
  if (report.floor) {
    const f = report.floor;
    console.log(`hand-written floor (plain HTTP, curl): ${JSON.stringify(f.medianMiBs)} MiB/s`);
    console.log(
      `hand-written floor: durable chunks / one request ${f.durableChunksToOneRequest} (median of the rounds' ratios ${JSON.stringify(f.roundRatios)})`,
    );
  }
  const verdict = (g) => (g.met === null ? 'not measured' : g.met ? 'met' : 'NOT met');
  console.log(
    `resumable / multipart: ${goals.resumableToMultipart.ratio} (goal >= 0.9: ${verdict(goals.resumableToMultipart)}; client tus-js-client)`,
  );
  console.log(
    `resumable / multipart: ${goals.curlResumableToMultipart.ratio} (goal >= 0.9: ${verdict(goals.curlResumableToMultipart)}; client curl, the server's own ratio)`,
  );
  console.log(`multipart / nginx: ${goals.multipartToNginx.ratio} (goal >= 0.5: ${verdict(goals.multipartToNginx)})`);
  console.log(
    `peak RSS growth: ${JSON.stringify(goals.rssGrowthUnder128MiB.peak)} MiB (goal < 128: ${verdict(goals.rssGrowthUnder128MiB)})`,
  );
  console.log(`written to ${path.relative(ROOT, out)}`);
}

/** Writes .data/bench/files.json and prints the summary. */
function writeReport({ work, file: { size }, disk: { copies, copyMiBs, synced, syncedMiBs }, tlsRuns, runs, directRuns, pids }) {
  const byTransfers = (n, dir) => median(runs.filter((r) => r.transfers === n).map((r) => r[dir].MiBs));
  const peakGrowth = Object.fromEntries(
    Object.keys(pids).map((app) => [
      app,
      Math.max(...runs.flatMap((r) => [r.upload.rssGrowthMiB[app], r.download.rssGrowthMiB[app]])),
    ]),
  );
  const report = {
    date: new Date().toISOString(),
    fileMiB: mib(size),
    client: CLIENT_KIND,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      loadAverage: loadavg().map((l) => +l.toFixed(2)),
      disk: spawnSync('df', ['-h', work]).stdout.toString().trim().split('\n').pop(),
    },
    copy: { MiBs: +copyMiBs.toFixed(0), seconds: copies },
    copyWithSync: { MiBs: +syncedMiBs.toFixed(0), seconds: synced },
    bareTlsPipe: { MiBs: median(tlsRuns.map((r) => r.MiBs)), cipher: tlsRuns[0].cipher, rounds: tlsRuns.map((r) => r.MiBs) },
    single: {
      uploadMiBs: byTransfers(1, 'upload'),
      downloadMiBs: byTransfers(1, 'download'),
    },
    parallel: {
      transfers: PARALLEL,
      uploadMiBs: byTransfers(PARALLEL, 'upload'),
      downloadMiBs: byTransfers(PARALLEL, 'download'),
    },
    ratioToCopy: {
      upload: +(byTransfers(1, 'upload') / copyMiBs).toFixed(2),
      download: +(byTransfers(1, 'download') / copyMiBs).toFixed(2),
      parallelUpload: +(byTransfers(PARALLEL, 'upload') / copyMiBs).toFixed(2),
      parallelDownload: +(byTransfers(PARALLEL, 'download') / copyMiBs).toFixed(2),
    },
    ratioToCopyWithSync: {
      upload: +(byTransfers(1, 'upload') / syncedMiBs).toFixed(2),
      download: +(byTransfers(1, 'download') / syncedMiBs).toFixed(2),
    },
    directToRecordsService: {
      uploadMiBs: median(directRuns.map((r) => r.upload.MiBs)),
      downloadMiBs: median(directRuns.map((r) => r.download.MiBs)),
    },
    peakRssGrowthMiB: peakGrowth,
    runs,
    directRuns,
  };
  mkdirSync(path.join(ROOT, '.data/bench'), { recursive: true });
  const out = path.join(ROOT, '.data/bench/files.json');
  writeFileSync(out, JSON.stringify(report, null, 2));
  console.log('');
  console.log(`file ${report.fileMiB} MiB; cp ${report.copy.MiBs} MiB/s; cp + sync ${report.copyWithSync.MiBs} MiB/s`);
  console.log(
    `1 transfer: upload ${report.single.uploadMiBs} MiB/s (${report.ratioToCopy.upload}x cp), download ${report.single.downloadMiBs} MiB/s (${report.ratioToCopy.download}x cp)`,
  );
  console.log(
    `${PARALLEL} at once (aggregate): upload ${report.parallel.uploadMiBs} MiB/s (${report.ratioToCopy.parallelUpload}x), download ${report.parallel.downloadMiBs} MiB/s (${report.ratioToCopy.parallelDownload}x)`,
  );
  console.log(
    `direct to records-service (no gateway): upload ${report.directToRecordsService.uploadMiBs} MiB/s, download ${report.directToRecordsService.downloadMiBs} MiB/s`,
  );
  console.log(
    `against cp + sync: upload ${report.ratioToCopyWithSync.upload}x, download ${report.ratioToCopyWithSync.download}x`,
  );
  console.log(
    `bare TLS pipe (no HTTP, no proxy, no storage): ${report.bareTlsPipe.MiBs} MiB/s (${(report.bareTlsPipe.MiBs / copyMiBs).toFixed(2)}x cp)`,
  );
  console.log(`peak RSS growth (MiB): ${JSON.stringify(peakGrowth)} (goal < 128 per process)`);
  console.log(`written to ${path.relative(ROOT, out)}`);
}

const query = (name) =>
  new URLSearchParams({ fileName: name, correlationId: '260101120000', fileType: 'document', uploadTitle: 'bench' }).toString();

const seconds = (started) => Number(process.hrtime.bigint() - started) / 1e9;

function summary({ seconds: s, rss, cpu }, bytes) {
  const GiB = bytes / 2 ** 30;
  return {
    seconds: +s.toFixed(2),
    MiBs: +(mib(bytes) / s).toFixed(0),
    cpuSecondsPerGiB: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, +(v / GiB).toFixed(2)])),
    rssBeforeMiB: rss.before,
    rssPeakMiB: rss.peak,
    rssGrowthMiB: Object.fromEntries(Object.keys(rss.peak).map((k) => [k, +(rss.peak[k] - rss.before[k]).toFixed(1)])),
  };
}

async function writeRandomFile(file, bytes) {
  const hash = createHash('sha256');
  const chunk = 8 * MiB;
  async function* blocks() {
    for (let left = bytes; left > 0; left -= chunk) {
      const b = randomBytes(Math.min(chunk, left));
      hash.update(b);
      yield b;
    }
  }
  await pipeline(blocks(), createWriteStream(file));
  return hash.digest('hex');
}

/** VmRSS of a process in MiB. */
const rssOf = rssMiBOf;

/** CPU time (user + system) a process used so far, in seconds. */
const cpuOf = (pid) => cpuMsOf(pid) / 1000;

/** CPU seconds of the client side of the transfers: this process and the curl processes it ran. */
const clientCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6 + curlCpuSeconds();
};

/**
 * Runs `work` while sampling the RSS of each process every 50 ms; also counts the CPU
 * seconds each process (and this client) spent meanwhile: on 2 vCPUs shared by all of
 * them, CPU per byte decides the throughput.
 */
async function sampled(pids, work) {
  const before = Object.fromEntries(Object.entries(pids).map(([app, pid]) => [app, +rssOf(pid).toFixed(1)]));
  const cpuBefore = { ...Object.fromEntries(Object.entries(pids).map(([app, pid]) => [app, cpuOf(pid)])), client: clientCpu() };
  const peak = { ...before };
  const timer = setInterval(() => {
    for (const [app, pid] of Object.entries(pids)) peak[app] = Math.max(peak[app], +rssOf(pid).toFixed(1));
  }, 50);
  const started = process.hrtime.bigint();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const s = seconds(started);
  for (const [app, pid] of Object.entries(pids)) peak[app] = Math.max(peak[app], +rssOf(pid).toFixed(1));
  const cpu = Object.fromEntries(
    Object.entries(cpuBefore).map(([app, was]) => [app, (app === 'client' ? clientCpu() : cpuOf(pids[app])) - was]),
  );
  return { seconds: s, rss: { before, peak }, cpu };
}

/**
 * Requests to the gateway (HTTPS, Host of the module, self-signed certificate
 * accepted) or, for a plain http:// base, straight to a service.
 */
function apiClient(baseUrl) {
  const url = new URL(baseUrl);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const host = (module) => `${module}.localhost`;
  const base = (module, method, p, headers = {}) => ({
    host: url.hostname,
    port: url.port,
    method,
    path: p,
    servername: host(module),
    rejectUnauthorized: false,
    headers: { host: host(module), ...headers },
  });
  const curlTarget = (module, p) =>
    url.protocol === 'https:'
      ? ['--resolve', `${host(module)}:${url.port}:${url.hostname}`, `https://${host(module)}:${url.port}${p}`]
      : ['-H', `host: ${host(module)}`, `${baseUrl}${p}`];
  // The token goes to curl in a header file (owner-only), not on its command line, where
  // any local user could read it.
  let headerFile;
  const curlAuth = () => {
    if (!client.token) return [];
    if (!headerFile) {
      headerFile = path.join(mkdtempSync(path.join(tmpdir(), 'bench-curl-')), 'auth-header');
      writeFileSync(headerFile, `authorization: Bearer ${client.token}\n`, { mode: 0o600 });
      cleanups.push(async () => rmSync(path.dirname(headerFile), { recursive: true, force: true }));
    }
    return ['-H', `@${headerFile}`];
  };
  const curlClient = {
    /** A Range read of start..end (inclusive), body discarded; checks 206 and the byte count. */
    async range(p, start, end) {
      const out = await curl([
        ...curlAuth(),
        '-r',
        `${start}-${end}`,
        '-o',
        '/dev/null',
        '-w',
        '%{http_code} %{size_download}',
        ...curlTarget('records-api', p),
      ]);
      const [status, received] = out.trim().split(' ').map(Number);
      if (status !== 206 || received !== end - start + 1) throw new Error(`range answered ${status} with ${received} bytes`);
    },
    /** Multipart upload (curl streams the file part from disk); checks 201 and the stored size. */
    async upload(p, file, size, sha256) {
      const out = await curl([
        ...curlAuth(),
        '-H',
        `x-checksum-sha256: ${sha256}`,
        '-F',
        `file=@${file};type=application/octet-stream;filename=bench.bin`,
        '-w',
        '\n%{http_code}',
        ...curlTarget('records-api', p),
      ]);
      const status = Number(out.slice(out.lastIndexOf('\n') + 1));
      const body = JSON.parse(out.slice(0, out.lastIndexOf('\n')) || '{}');
      if (status !== 201 || body.fileSize !== size) throw new Error(`upload answered ${status}: ${JSON.stringify(body)}`);
      return body;
    },
    /** Download to a file on the same disk; checks 200 and the byte count. */
    async download(p, target, size) {
      const out = await curl([
        ...curlAuth(),
        '-o',
        target,
        '-w',
        '%{http_code} %{size_download}',
        ...curlTarget('records-api', p),
      ]);
      const [status, received] = out.trim().split(' ').map(Number);
      if (status !== 200) throw new Error(`download answered ${status}`);
      if (received !== size) throw new Error(`downloaded ${received} of ${size} bytes`);
    },
  };
  const client = {
    token: '',
    auth() {
      return client.token ? { authorization: `Bearer ${client.token}` } : {};
    },
    json(module, method, p, body) {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers = {
        ...client.auth(),
        ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
      };
      return new Promise((resolve, reject) => {
        const req = request(base(module, method, p, headers), (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            let parsed = text;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              /* not JSON */
            }
            resolve({ status: res.statusCode, body: parsed });
          });
        });
        req.on('error', reject);
        req.end(payload);
      });
    },
    /** Multipart upload streamed from disk; checks 201 and the stored size. */
    upload(p, file, size, sha256) {
      const boundary = `----bench${randomUUID()}`;
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const headers = {
        ...client.auth(),
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
        'x-checksum-sha256': sha256,
      };
      return new Promise((resolve, reject) => {
        const req = request(base('records-api', 'POST', p, headers), (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString() || '{}');
            if (res.statusCode !== 201 || body.fileSize !== size) {
              reject(new Error(`upload answered ${res.statusCode}: ${JSON.stringify(body)}`));
            } else resolve(body);
          });
        });
        req.on('error', reject);
        req.write(head);
        const stream = createReadStream(file, { highWaterMark: MiB });
        stream.pipe(req, { end: false });
        stream.on('error', reject);
        stream.on('end', () => req.end(tail));
      });
    },
    /** A Range read of start..end (inclusive), body discarded; checks 206 and the byte count. */
    range(p, start, end) {
      return new Promise((resolve, reject) => {
        const req = request(base('records-api', 'GET', p, { ...client.auth(), range: `bytes=${start}-${end}` }), (res) => {
          let received = 0;
          res.on('data', (c) => (received += c.length));
          res.on('end', () =>
            res.statusCode === 206 && received === end - start + 1
              ? resolve()
              : reject(new Error(`range answered ${res.statusCode} with ${received} bytes`)),
          );
        });
        req.on('error', reject);
        req.end();
      });
    },
    /** Download to a file on the same disk; checks 200 and the byte count. */
    download(p, target, size) {
      return new Promise((resolve, reject) => {
        const req = request(base('records-api', 'GET', p, client.auth()), (res) => {
          if (res.statusCode !== 200) return reject(new Error(`download answered ${res.statusCode}`));
          let received = 0;
          res.on('data', (c) => (received += c.length));
          pipeline(res, createWriteStream(target, { highWaterMark: MiB })).then(() => {
            if (received !== size) reject(new Error(`downloaded ${received} of ${size} bytes`));
            else resolve();
          }, reject);
        });
        req.on('error', reject);
        req.end();
      });
    },
  };
  if (CLIENT_KIND === 'curl') Object.assign(client, curlClient);
  return client;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const c of cleanups) await c().catch((e) => console.error(`cleanup: ${e.message}`));
  });
