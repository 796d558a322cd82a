/**
 * The floor of a chunked upload that acknowledges each chunk only once it is durable, on
 * this machine and apart from the platform: a hand-written Node HTTP server in another
 * process (plain HTTP, no gateway, no framework, no token or role check, no tus library)
 * that stores
 *
 * - `POST /stream`: a whole file in one request, SHA-256 on the way, flushed to disk in
 *   the background every 64 MiB and fsynced at the end, then answers 201 (the least a
 *   single-request upload does);
 * - `PATCH /chunk?offset=N&sync=1&record=1`: the chunk written at its offset, SHA-256 on
 *   the way, flushed in the background every 2 MiB and fsynced at the end (`sync=1`), then
 *   the new offset committed in PostgreSQL (one `UPDATE`, `record=1`), then 204 with the
 *   offset: the least any server does that acknowledges a chunk only once it is durable
 *   and its offset survives a restart. `sync=0` / `record=0` leave out either step (where
 *   the time goes).
 *
 * Both are sent by curl as the benchmark sends the tus requests (one curl for all the
 * PATCHes on one kept-alive connection, `--next`, no `Expect: 100-continue`).
 *
 * As a module: `chunkFloor({ source, size, pieces, databaseUrl, dir })` resolves with the
 * MiB/s of each variant. Run as a script with `serve <dir> <databaseUrl>` it is the server
 * (sends its port over IPC; its table is dropped when it stops).
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  close,
  closeSync,
  createWriteStream,
  fdatasync,
  fsync,
  mkdirSync,
  open,
  openSync,
  rmSync,
  statSync,
  write,
  writev,
} from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { curl } from './resumable.mjs';

const SELF = fileURLToPath(import.meta.url);

/** The variants measured, in order: what each PATCH does before it answers. */
export const FLOOR_VARIANTS = {
  'one request': null,
  'chunks, fsync + offset committed': { sync: 1, record: 1 },
  'chunks, fsync only': { sync: 1, record: 0 },
  'chunks, neither': { sync: 0, record: 0 },
};

/** One run of every variant; resolves with `{ [variant]: MiB/s }`. */
export async function chunkFloor({ source, size, pieces, databaseUrl, dir }) {
  mkdirSync(dir, { recursive: true });
  const server = fork(SELF, ['serve', dir, databaseUrl], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const port = await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.once('exit', (code) => reject(new Error(`the floor server exited ${code}`)));
      server.once('message', (m) => resolve(m.port));
    });
    const base = `http://127.0.0.1:${port}`;
    const result = {};
    for (const [variant, flags] of Object.entries(FLOOR_VARIANTS)) {
      const started = process.hrtime.bigint();
      if (!flags) {
        const status = await curl([
          '-X',
          'POST',
          '-T',
          source,
          '-H',
          'Expect:',
          '-o',
          '/dev/null',
          '-w',
          '%{http_code}',
          `${base}/stream`,
        ]);
        if (status.trim() !== '201') throw new Error(`floor stream answered ${status}`);
      } else {
        const args = [];
        let offset = 0;
        for (const [i, piece] of pieces.entries()) {
          if (i > 0) args.push('--next');
          args.push('-X', 'PATCH', '-T', piece, '-H', 'Expect:', '-o', '/dev/null', '-w', '%{http_code}\\n');
          args.push(`${base}/chunk?offset=${offset}&sync=${flags.sync}&record=${flags.record}`);
          offset += statSync(piece).size;
        }
        const answers = (await curl(args)).trim().split('\n');
        if (answers.length !== pieces.length || answers.some((a) => a !== '204'))
          throw new Error(`floor chunks answered ${answers.join(',')}`);
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      result[variant] = Math.round(size / 2 ** 20 / seconds);
    }
    return result;
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => (server.exitCode === null ? server.once('exit', resolve) : resolve()));
  }
}

/**
 * `fs` calls for a write stream that fdatasyncs in the background after every `every`
 * bytes (one flush at a time) so that its closing fsync waits for the last part only.
 */
function flushingFs(every) {
  let unflushed = 0;
  let flushing;
  const wrote = (fd, n) => {
    unflushed += n;
    if (unflushed < every || flushing) return;
    unflushed = 0;
    flushing = new Promise((resolve) => fdatasync(fd, () => resolve((flushing = undefined))));
  };
  return {
    open,
    close,
    write: (fd, data, offset, length, position, cb) =>
      write(fd, data, offset, length, position, (err, n, b) => (err || wrote(fd, n), cb(err, n, b))),
    writev: (fd, data, position, cb) => writev(fd, data, position, (err, n, b) => (err || wrote(fd, n), cb(err, n, b))),
    fsync: (fd, cb) => (flushing ? flushing.then(() => fsync(fd, cb)) : fsync(fd, cb)),
  };
}

/** Feeds the bytes to a SHA-256 (and `seen`) on their way to the file. */
const hashing = (hash, seen = () => undefined) =>
  new Transform({
    highWaterMark: 1 << 20,
    transform(chunk, _enc, cb) {
      hash.update(chunk);
      seen(chunk.length);
      cb(null, chunk);
    },
  });

async function serve(dir, databaseUrl) {
  const require = createRequire(path.join(process.cwd(), 'package.json'));
  const { Client } = require('pg');
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const table = `bench_chunk_floor_${process.pid}`;
  await db.query(`CREATE TABLE ${table} (id int PRIMARY KEY, upload_offset bigint NOT NULL)`);
  await db.query(`INSERT INTO ${table} VALUES (1, 0)`);
  const file = path.join(dir, 'floor.bin');
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://floor');
      if (req.method === 'POST' && url.pathname === '/stream') {
        rmSync(file, { force: true });
        const hash = createHash('sha256');
        await pipeline(
          req,
          hashing(hash),
          createWriteStream(file, { flush: true, highWaterMark: 1 << 20, fs: flushingFs(64 << 20) }),
        );
        hash.digest();
        res.writeHead(201).end();
        return;
      }
      if (req.method === 'PATCH' && url.pathname === '/chunk') {
        const offset = Number(url.searchParams.get('offset'));
        const sync = url.searchParams.get('sync') === '1';
        if (offset === 0) closeSync(openSync(file, 'w'));
        const hash = createHash('sha256');
        let written = 0;
        await pipeline(
          req,
          hashing(hash, (n) => (written += n)),
          createWriteStream(file, {
            flags: 'r+',
            start: offset,
            flush: sync,
            highWaterMark: 1 << 20,
            ...(sync ? { fs: flushingFs(2 << 20) } : {}),
          }),
        );
        if (url.searchParams.get('record') === '1')
          await db.query(`UPDATE ${table} SET upload_offset = $1 WHERE id = 1`, [offset + written]);
        res.writeHead(204, { 'upload-offset': String(offset + written) }).end();
        return;
      }
      res.writeHead(404).end();
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.once('SIGTERM', async () => {
    server.close();
    await db.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await db.end().catch(() => undefined);
    rmSync(file, { force: true });
    process.exit(0);
  });
}

if (process.argv[2] === 'serve') await serve(process.argv[3], process.argv[4]);
