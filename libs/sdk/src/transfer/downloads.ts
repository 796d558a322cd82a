import { createWriteStream } from 'node:fs';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { DigestMismatchError, errorFromResponse, VaultNetworkError } from '../errors.js';
import type { Transport } from '../policy/transport.js';
import { expectedSha256, sha256Hex } from './digest.js';

export interface DownloadOptions {
  /** Where the file goes; the bytes arrive in `<to>.part` (kept when interrupted) until checked. */
  to: string;
  /** Progress in bytes written, of the whole file. */
  onProgress?: (received: number, total: number | undefined) => void;
  signal?: AbortSignal;
}

export interface DownloadResult {
  path: string;
  size: number;
  sha256: string;
  contentType: string | undefined;
  /** true when bytes of an earlier, interrupted download were kept. */
  resumed: boolean;
}

/**
 * Downloads a file with `Range` resume: an interrupted download (a dropped connection, Ctrl-C)
 * goes on from the bytes already in `<to>.part`, with `If-Range` on the ETag they came with so
 * that a file replaced meanwhile is sent whole again. The result is checked against the SHA-256
 * the platform names (`Repr-Digest`); a mismatch deletes the bytes and throws {@link DigestMismatchError}.
 */
export async function downloadFile(transport: Transport, url: string, o: DownloadOptions): Promise<DownloadResult> {
  const { response, resumed, completeAt } = await resumable(transport, url, o);
  // a .part found whole is checked against the ETag it came with (the SHA-256 of the file)
  const expected = completeAt ?? expectedSha256(response.headers);
  return finish(`${o.to}.part`, `${o.to}.part-etag`, o.to, expected, response, resumed);
}

export interface AgeExportResult {
  path: string;
  size: number;
  /** true when bytes of an earlier, interrupted export were kept. */
  resumed: boolean;
}

/**
 * Downloads a `.age` export to `o.to` (through `<to>.part`, renamed once complete), resuming an
 * interrupted one as {@link downloadFile} does when the platform offers ranges of it (an ETag and
 * `Accept-Ranges: bytes`); a file sealed to another vault is rewrapped at each export and comes
 * whole. No digest check: the one the platform names is the plaintext's, and age authenticates
 * every chunk itself.
 */
export async function exportAgeFile(transport: Transport, url: string, o: DownloadOptions): Promise<AgeExportResult> {
  const part = `${o.to}.part`;
  for (let fresh = false; ; fresh = true) {
    const { resumed, total } = await resumable(transport, url, o);
    const size = await sizeOf(part);
    if (total === undefined || size === total) {
      await rename(part, o.to);
      await rm(`${o.to}.part-etag`, { force: true });
      return { path: o.to, size, resumed };
    }
    // not the length the platform named (a .part another run appended to): its bytes cannot be
    // trusted, so the export starts again from the first byte, once
    await rm(part, { force: true });
    await rm(`${o.to}.part-etag`, { force: true });
    if (fresh) throw new VaultNetworkError(`export of ${url}: ${size} bytes received of ${total}`);
  }
}

/**
 * Fetches `url` into `<to>.part`, going on with `Range` and `If-Range` from the bytes an earlier
 * attempt or run left there (with the ETag in `<to>.part-etag`), retrying a dropped connection up
 * to the transport's attempts. Resolves with the last answer once every byte is in `.part`, and
 * the file's length as the answer named it; `completeAt` is the ETag of a `.part` the platform
 * found whole already (416 to the range after its end, If-Range matching).
 */
async function resumable(
  transport: Transport,
  url: string,
  o: DownloadOptions,
): Promise<{ response: Response; resumed: boolean; completeAt?: string; total: number | undefined }> {
  const part = `${o.to}.part`;
  const tagFile = `${o.to}.part-etag`;
  let resumed = false;
  for (let attempt = 1; ; attempt++) {
    const have = await sizeOf(part);
    const etag = have > 0 ? await readFile(tagFile, 'utf8').catch(() => undefined) : undefined;
    const headers: Record<string, string> = etag ? { range: `bytes=${have}-`, 'if-range': etag } : {};
    const response = await transport.send(url, { method: 'GET', headers, signal: o.signal });
    if (response.status === 416 && etag) {
      await response.body?.cancel();
      return { response, resumed: true, completeAt: etag, total: totalSize(response, 0) };
    }
    if (response.status !== 200 && response.status !== 206) throw await errorFromResponse(response);
    const append = response.status === 206;
    resumed ||= append;
    // only bytes that come again the same (an ETag offered with ranges) are worth keeping for a resume
    const tag = response.headers.get('accept-ranges') === 'none' ? '' : (response.headers.get('etag') ?? '');
    await writeFile(tagFile, tag);
    const total = totalSize(response, append ? have : 0);
    try {
      await writeBody(response, part, append ? have : 0, total, o);
      return { response, resumed, total };
    } catch (e) {
      if (o.signal?.aborted || attempt >= transport.retry.maxAttempts) {
        if (o.signal?.aborted) throw e;
        throw new VaultNetworkError(`download of ${url} interrupted ${attempt} time(s)`, { cause: e });
      }
    }
  }
}

async function writeBody(response: Response, part: string, offset: number, total: number | undefined, o: DownloadOptions) {
  const out = createWriteStream(part, { flags: offset > 0 ? 'a' : 'w' });
  let received = offset;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      received += chunk.byteLength;
      o.onProgress?.(received, total);
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
}

async function finish(
  part: string,
  tagFile: string,
  to: string,
  expected: string | undefined,
  response: Response,
  resumed: boolean,
) {
  const sha256 = await sha256Hex(part);
  const want = expected && /^[0-9a-f]{64}$/.test(expected) ? expected : /^"?([0-9a-f]{64})"?$/.exec(expected ?? '')?.[1];
  if (want && want !== sha256) {
    await rm(part, { force: true });
    await rm(tagFile, { force: true });
    throw new DigestMismatchError(want, sha256);
  }
  await rename(part, to);
  await rm(tagFile, { force: true });
  const contentType = response.headers.get('content-type') ?? undefined;
  return { path: to, size: await sizeOf(to), sha256, contentType, resumed };
}

function totalSize(response: Response, offset: number): number | undefined {
  const range = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '');
  if (range?.[1]) return Number(range[1]);
  const length = response.headers.get('content-length');
  return length === null ? undefined : offset + Number(length);
}

async function sizeOf(path: string): Promise<number> {
  return (await stat(path).catch(() => undefined))?.size ?? 0;
}
