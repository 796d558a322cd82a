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
      return finish(part, tagFile, o.to, etag, response, true);
    }
    if (response.status !== 200 && response.status !== 206) throw await errorFromResponse(response);
    const append = response.status === 206;
    resumed ||= append;
    const tag = response.headers.get('etag') ?? '';
    await writeFile(tagFile, tag);
    const total = totalSize(response, append ? have : 0);
    try {
      await writeBody(response, part, append ? have : 0, total, o);
      return await finish(part, tagFile, o.to, expectedSha256(response.headers), response, resumed);
    } catch (e) {
      if (o.signal?.aborted || e instanceof DigestMismatchError || attempt >= transport.retry.maxAttempts) {
        if (e instanceof DigestMismatchError || o.signal?.aborted) throw e;
        throw new VaultNetworkError(`download of ${url} interrupted ${attempt} time(s)`, { cause: e });
      }
    }
  }
}

export interface AgeExportResult {
  path: string;
  size: number;
}

/** Downloads a `.age` export to `o.to` (through `<to>.part`, renamed once complete). */
export async function exportAgeFile(transport: Transport, url: string, o: DownloadOptions): Promise<AgeExportResult> {
  const part = `${o.to}.part`;
  const response = await transport.send(url, { method: 'GET', headers: {}, signal: o.signal });
  if (response.status !== 200) throw await errorFromResponse(response);
  try {
    await writeBody(response, part, 0, totalSize(response, 0), o);
  } catch (e) {
    await rm(part, { force: true });
    if (o.signal?.aborted) throw e;
    throw new VaultNetworkError(`download of ${url} interrupted`, { cause: e });
  }
  const size = await sizeOf(part);
  await rename(part, o.to);
  return { path: o.to, size };
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
