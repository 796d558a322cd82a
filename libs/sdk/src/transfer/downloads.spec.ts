import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DigestMismatchError } from '../errors';
import { Transport } from '../policy/transport';
import { downloadFile, exportAgeFile } from './downloads';

const bytes = randomBytes(64 * 1024);
const sha = createHash('sha256').update(bytes).digest();

/**
 * Serves `bytes` as the platform does: ETag = SHA-256 hex, Repr-Digest, one Range, If-Range; with
 * `noRanges` as a `.age` export rewrapped at each request: no ETag, `Accept-Ranges: none`, whole.
 */
function fileServer(o: ServeOptions) {
  const ranges: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    ranges.push(req.headers.range);
    const etag = `"${sha.toString('hex')}"`;
    const headers = o.noRanges
      ? { 'accept-ranges': 'none', 'content-type': 'application/octet-stream' }
      : {
          etag,
          'accept-ranges': 'bytes',
          'repr-digest': `sha-256=:${(o.digestOf ?? sha).toString('base64')}:`,
          'content-type': 'application/pdf',
        };
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m && !o.noRanges && req.headers['if-range'] === etag ? Number(m[1]) : 0;
    if (start >= bytes.length) {
      res.writeHead(416, { 'content-range': `bytes */${bytes.length}`, 'content-type': 'application/problem+json' });
      res.end('{"status":416}');
      return;
    }
    const body = bytes.subarray(start);
    const status = start > 0 ? 206 : 200;
    res.writeHead(status, {
      ...headers,
      'content-length': body.length,
      ...(start > 0 ? { 'content-range': `bytes ${start}-${bytes.length - 1}/${bytes.length}` } : {}),
    });
    res.end(body);
  });
  return { server, ranges };
}

interface ServeOptions {
  digestOf?: Buffer;
  cutAfter?: number;
  noRanges?: boolean;
}

/** The answer as a connection dropped after `after` bytes would give it: those bytes, then an error. */
function cut(response: Response, after: number): Response {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done || sent >= after) {
        void reader.cancel();
        return controller.error(new TypeError('terminated: other side closed'));
      }
      const part = value.subarray(0, after - sent);
      sent += part.length;
      controller.enqueue(part);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

describe('downloadFile', () => {
  let dir: string;
  const servers: Server[] = [];
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sdk-dl-'))));
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    servers.splice(0).forEach((s) => s.close());
  });

  async function serve(o: ServeOptions) {
    const { server, ranges } = fileServer(o);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/file`;
    let calls = 0;
    const transport = new Transport({
      fetch: async (u, init) => {
        const response = await fetch(u, init);
        return ++calls === 1 && o.cutAfter !== undefined ? cut(response, o.cutAfter) : response;
      },
      sleep: async () => undefined,
    });
    return { url, ranges, transport };
  }

  it('downloads, checks the digest and reports progress', async () => {
    const { url, transport } = await serve({});
    const progress: number[] = [];
    const result = await downloadFile(transport, url, { to: join(dir, 'f.pdf'), onProgress: (n) => progress.push(n) });
    expect(result).toMatchObject({
      size: bytes.length,
      sha256: sha.toString('hex'),
      contentType: 'application/pdf',
      resumed: false,
    });
    expect(readFileSync(join(dir, 'f.pdf')).equals(bytes)).toBe(true);
    expect(progress.at(-1)).toBe(bytes.length);
    expect(existsSync(join(dir, 'f.pdf.part'))).toBe(false);
  });

  it('goes on from where a dropped connection stopped, with Range and If-Range', async () => {
    const { url, ranges, transport } = await serve({ cutAfter: 10_000 });
    const result = await downloadFile(transport, url, { to: join(dir, 'f.pdf') });
    expect(ranges).toEqual([undefined, 'bytes=10000-']);
    expect(result.resumed).toBe(true);
    expect(readFileSync(join(dir, 'f.pdf')).equals(bytes)).toBe(true);
  });

  it('keeps the bytes of an earlier run and asks only for the rest', async () => {
    const { url, ranges, transport } = await serve({});
    writeFileSync(join(dir, 'f.pdf.part'), bytes.subarray(0, 5000));
    writeFileSync(join(dir, 'f.pdf.part-etag'), `"${sha.toString('hex')}"`);
    expect((await downloadFile(transport, url, { to: join(dir, 'f.pdf') })).resumed).toBe(true);
    expect(ranges).toEqual(['bytes=5000-']);
    expect(readFileSync(join(dir, 'f.pdf')).equals(bytes)).toBe(true);
  });

  it('throws DigestMismatchError and keeps nothing when the bytes are not the named ones', async () => {
    const { url, transport } = await serve({ digestOf: Buffer.alloc(32) });
    await expect(downloadFile(transport, url, { to: join(dir, 'f.pdf') })).rejects.toBeInstanceOf(DigestMismatchError);
    expect(existsSync(join(dir, 'f.pdf'))).toBe(false);
    expect(existsSync(join(dir, 'f.pdf.part'))).toBe(false);
  });

  describe('exportAgeFile', () => {
    it('goes on from where a dropped connection stopped when the export offers ranges', async () => {
      const { url, ranges, transport } = await serve({ cutAfter: 10_000 });
      const result = await exportAgeFile(transport, url, { to: join(dir, 'f.age') });
      expect(ranges).toEqual([undefined, 'bytes=10000-']);
      expect(result).toEqual({ path: join(dir, 'f.age'), size: bytes.length, resumed: true });
      expect(readFileSync(join(dir, 'f.age')).equals(bytes)).toBe(true);
      expect(existsSync(join(dir, 'f.age.part'))).toBe(false);
      expect(existsSync(join(dir, 'f.age.part-etag'))).toBe(false);
    });

    it('starts again from the first byte when the export is sent whole only (Accept-Ranges: none)', async () => {
      const { url, ranges, transport } = await serve({ cutAfter: 10_000, noRanges: true });
      const result = await exportAgeFile(transport, url, { to: join(dir, 'f.age') });
      expect(ranges).toEqual([undefined, undefined]);
      expect(result.resumed).toBe(false);
      expect(readFileSync(join(dir, 'f.age')).equals(bytes)).toBe(true);
    });

    it('takes a .part an earlier run left whole, without asking for its bytes again', async () => {
      const { url, ranges, transport } = await serve({});
      writeFileSync(join(dir, 'f.age.part'), bytes);
      writeFileSync(join(dir, 'f.age.part-etag'), `"${sha.toString('hex')}"`);
      const result = await exportAgeFile(transport, url, { to: join(dir, 'f.age') });
      expect(ranges).toEqual([`bytes=${bytes.length}-`]);
      expect(result).toMatchObject({ size: bytes.length, resumed: true });
      expect(readFileSync(join(dir, 'f.age')).equals(bytes)).toBe(true);
    });

    it('starts again from the first byte when a .part is longer than the file the platform names', async () => {
      const { url, ranges, transport } = await serve({});
      writeFileSync(join(dir, 'f.age.part'), Buffer.concat([bytes, Buffer.alloc(10)]));
      writeFileSync(join(dir, 'f.age.part-etag'), `"${sha.toString('hex')}"`);
      const result = await exportAgeFile(transport, url, { to: join(dir, 'f.age') });
      expect(ranges).toEqual([`bytes=${bytes.length + 10}-`, undefined]);
      expect(result).toMatchObject({ size: bytes.length, resumed: false });
      expect(readFileSync(join(dir, 'f.age')).equals(bytes)).toBe(true);
    });
  });
});
