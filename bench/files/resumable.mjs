/**
 * The resumable (tus 1.0) upload as an app sends it: tus-js-client reading the file from
 * disk in fixed-size chunks, one PATCH per chunk, and the timings of every request (where
 * the time of a chunked upload goes). The same requests sent by curl, a client that costs
 * little CPU on the machine the servers share: the server's own cost apart from
 * tus-js-client's. Also a disk-only yardstick of the storage's per-chunk durability:
 * write + fdatasync per chunk against a plain write of the same bytes.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  fdatasyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

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
 * The file cut into `chunkSize` pieces in `dir` (`split`, once per run, outside the
 * measured time): curl sends each PATCH's body from its piece with a known length.
 */
export function splitIntoChunks({ source, chunkSize, dir }) {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('split', ['-b', String(chunkSize), '-d', '-a', '5', source, path.join(dir, 'chunk-')]);
  if (r.status !== 0) throw new Error(`split failed: ${r.stderr}`);
  return readdirSync(dir)
    .filter((f) => f.startsWith('chunk-'))
    .sort()
    .map((f) => path.join(dir, f));
}

/**
 * The same tus 1.0 requests as tusUpload, sent by curl: one curl for the POST (creation,
 * the same metadata with `sha256`), then one curl for every PATCH in order on one kept-alive
 * connection (`--next`; `-T <piece> -X PATCH`, `Upload-Offset`, `Content-Type:
 * application/offset+octet-stream`, no `Expect: 100-continue`). Every answer is checked
 * afterwards: 204 with the next offset, the last one with `Record-File-Id`. The token goes
 * in a header file (`authFile`), not on the command line. Resolves like tusUpload (the
 * gaps between PATCHes are curl's own and not measured: empty).
 */
export async function curlTusUpload({ endpoint, authFile, pieces, size, sha256, fileName }) {
  const url = new URL(endpoint);
  const target = url.hostname.endsWith('.localhost') ? ['--resolve', `${url.hostname}:${url.port}:127.0.0.1`] : [];
  // per transfer: --next starts the next one without them (-k included)
  const common = ['-k', ...target, '-H', `@${authFile}`, '-H', 'Tus-Resumable: 1.0.0', '-o', '/dev/null'];
  const b64 = (v) => Buffer.from(v).toString('base64');
  const metadata = { fileName, correlationId: '260101120000', fileType: 'document', uploadTitle: 'bench', sha256 };
  const created = await curl([
    ...common,
    '-X',
    'POST',
    '-H',
    `Upload-Length: ${size}`,
    '-H',
    `Upload-Metadata: ${Object.entries(metadata)
      .map(([k, v]) => `${k} ${b64(v)}`)
      .join(',')}`,
    '-w',
    '%{http_code} %{time_total} %header{location}',
    endpoint,
  ]);
  const [postStatus, postSeconds, location] = created.trim().split(' ');
  if (postStatus !== '201' || !location) throw new Error(`tus POST answered ${postStatus}`);
  const upload = new URL(location, endpoint).href;
  const args = [];
  let offset = 0;
  const offsets = [];
  for (const [i, piece] of pieces.entries()) {
    if (i > 0) args.push('--next');
    args.push(...common, '-X', 'PATCH', '-T', piece, '-H', `Upload-Offset: ${offset}`);
    args.push('-H', 'Content-Type: application/offset+octet-stream', '-H', 'Expect:');
    args.push('-w', '%{http_code} %{time_total} %header{upload-offset} %header{record-file-id}\\n', upload);
    offset += statSync(piece).size;
    offsets.push(offset);
  }
  if (offset !== size) throw new Error(`the pieces hold ${offset} bytes, not ${size}`);
  const answers = (await curl(args)).trim().split('\n');
  const timings = { post: Number(postSeconds) * 1000, patch: [], gaps: [] };
  let recordFileId;
  for (const [i, answer] of answers.entries()) {
    const [status, seconds, newOffset, fileId] = answer.split(' ');
    if (status !== '204' || Number(newOffset) !== offsets[i])
      throw new Error(`PATCH ${i + 1} answered ${status} (Upload-Offset ${newOffset})`);
    timings.patch.push(Number(seconds) * 1000);
    recordFileId = fileId;
  }
  if (answers.length !== pieces.length || !recordFileId) throw new Error('the last PATCH answered without Record-File-Id');
  return { recordFileId, timings };
}

/** An owner-only header file with the bearer token for curl (`-H @file`). */
export function writeAuthFile(dir, token) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'tus-auth-header');
  writeFileSync(file, `authorization: Bearer ${token}\n`, { mode: 0o600 });
  return file;
}

/** CPU seconds (user + system) the curl processes run by `curl` used so far. */
let curlCpu = 0;
export const curlCpuSeconds = () => curlCpu;

/**
 * Runs `curl -sS -k <args>` under bash, whose `times` reports the CPU the curl process
 * used (counted in curlCpuSeconds); resolves with curl's standard output.
 */
export function curl(args) {
  const script = '"$@"; status=$?; times >&2; exit $status';
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script, 'bench-curl', 'curl', '-sS', '-k', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = Buffer.concat(err).toString().trim().split('\n');
      // `times`: the shell's own user/system, then its children's.
      const children = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines.pop() ?? '');
      if (children) curlCpu += Number(children[1]) * 60 + Number(children[2]) + Number(children[3]) * 60 + Number(children[4]);
      lines.pop();
      if (code !== 0) reject(new Error(`curl exited ${code}: ${lines.join(' ')}`));
      else resolve(Buffer.concat(out).toString());
    });
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
 * CPU seconds per GiB of the whole-file SHA-256 in records-service: node:crypto (OpenSSL,
 * SHA-NI where present), what the multipart and the resumable upload compute in memory,
 * against hash-wasm, the resumable upload's former hash (its state saved after every
 * chunk), kept as a yardstick of that design; fed 64 KiB at a time like a socket stream.
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
