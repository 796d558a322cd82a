/**
 * The resumable (tus 1.0) upload as an app sends it: tus-js-client reading the file from
 * disk in fixed-size chunks, one PATCH per chunk, and the timings of every request (where
 * the time of a chunked upload goes). Also a disk-only yardstick of the storage's per-chunk
 * durability: write + fdatasync per chunk against a plain write of the same bytes.
 */
import { closeSync, createReadStream, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';

const require = createRequire(import.meta.url);
const tus = require('tus-js-client');

/** Every `*.localhost` host is the gateway on loopback (the module is chosen by Host / SNI). */
const loopback = (_host, options, cb) => {
  if (options.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
  else cb(null, '127.0.0.1', 4);
};
const httpStack = new tus.DefaultHttpStack({ rejectUnauthorized: false, lookup: loopback });

/**
 * Uploads `source` to `endpoint` (the record's `…/uploads`) in chunks of `chunkSize`;
 * resolves with the record file id and per-request timings (ms): `post`, each `patch`,
 * and the `gaps` between the end of one PATCH and the start of the next (client side).
 */
export function tusUpload({ endpoint, token, source, size, sha256, fileName, chunkSize }) {
  return new Promise((resolve, reject) => {
    const timings = { post: 0, patch: [], gaps: [] };
    let started = 0;
    let lastEnd = 0;
    const now = () => Number(process.hrtime.bigint()) / 1e6;
    const upload = new tus.Upload(createReadStream(source), {
      endpoint,
      httpStack,
      chunkSize,
      uploadSize: size,
      retryDelays: [],
      storeFingerprintForResuming: false,
      headers: { Authorization: `Bearer ${token}` },
      metadata: { fileName, correlationId: '260101120000', fileType: 'document', uploadTitle: 'bench', sha256 },
      onBeforeRequest: () => {
        started = now();
        if (lastEnd) timings.gaps.push(started - lastEnd);
      },
      onAfterResponse: (req) => {
        lastEnd = now();
        if (req.getMethod() === 'POST') timings.post = lastEnd - started;
        else if (req.getMethod() === 'PATCH') timings.patch.push(lastEnd - started);
      },
      onSuccess: ({ lastResponse }) => {
        const recordFileId = lastResponse.getHeader('Record-File-Id');
        if (lastResponse.getStatus() !== 204 || !recordFileId) {
          reject(new Error(`last PATCH answered ${lastResponse.getStatus()} without Record-File-Id`));
        } else resolve({ recordFileId, timings });
      },
      onError: reject,
    });
    upload.start();
  });
}

/**
 * `chunks` chunks of `chunkSize` written to a file in `dir`, once with an fdatasync after
 * each chunk (what the filesystem storage does before a chunk is recorded) and once
 * without; resolves with MiB/s of each and the milliseconds per synced chunk.
 */
export function measureChunkFsync({ file, chunkSize, chunks }) {
  const buffer = randomBytes(chunkSize);
  const run = (sync) => {
    const fd = openSync(file, 'w');
    const started = process.hrtime.bigint();
    for (let i = 0; i < chunks; i++) {
      writeSync(fd, buffer);
      if (sync) fdatasyncSync(fd);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    closeSync(fd);
    rmSync(file);
    return seconds;
  };
  const plain = run(false);
  const synced = run(true);
  const MiB = (chunkSize * chunks) / 2 ** 20;
  return {
    chunkMiB: chunkSize / 2 ** 20,
    chunks,
    writeMiBs: +(MiB / plain).toFixed(0),
    writeFdatasyncMiBs: +(MiB / synced).toFixed(0),
    // not synced - plain: without fdatasync the kernel throttles the writer once the dirty
    // pages pass its threshold, so the plain run is no lower bound
    writeFdatasyncMsPerChunk: +((synced / chunks) * 1000).toFixed(1),
  };
}

/**
 * CPU seconds per GiB of the whole-file SHA-256 in records-service, as each upload computes
 * it: node:crypto (multipart; OpenSSL, SHA-NI where present) against hash-wasm (resumable,
 * whose state is saved after every chunk), fed 64 KiB at a time like a socket stream.
 */
export async function measureSha256({ MiB: total = 256 } = {}) {
  const { createHash } = await import('node:crypto');
  const { createSHA256 } = require('hash-wasm');
  const piece = randomBytes(64 * 1024);
  const rounds = (total * 1024) / 64;
  const time = (hash) => {
    const started = process.cpuUsage();
    for (let i = 0; i < rounds; i++) hash.update(piece);
    hash.digest('hex');
    const { user, system } = process.cpuUsage(started);
    return +(((user + system) / 1e6) * (1024 / total)).toFixed(2);
  };
  const wasm = await createSHA256();
  wasm.init();
  return { nodeCryptoCpuSecondsPerGiB: time(createHash('sha256')), hashWasmCpuSecondsPerGiB: time(wasm) };
}
