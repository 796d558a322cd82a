import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

/** SHA-256 (hex) of a file on disk, read as a stream, or of bytes. */
export async function sha256Hex(file: string | Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  if (typeof file !== 'string') return hash.update(file).digest('hex');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The SHA-256 (hex) an answer names for the whole file: `Repr-Digest: sha-256=:<base64>:`
 * (RFC 9530), else a quoted 64-hex `ETag` (the platform's download tag).
 */
export function expectedSha256(headers: Headers): string | undefined {
  const digest = headers.get('repr-digest');
  const match = digest ? /sha-256=:([A-Za-z0-9+/=]+):/.exec(digest) : null;
  if (match?.[1]) return Buffer.from(match[1], 'base64').toString('hex');
  const etag = /^"([0-9a-f]{64})"$/.exec(headers.get('etag') ?? '');
  return etag?.[1];
}

/**
 * The tus `Upload-Checksum` of the chunk at `offset` (`sha256 <base64>`, tus checksum extension):
 * the platform discards a chunk that does not match (460) instead of storing damaged bytes.
 */
export async function chunkChecksum(file: string | Uint8Array, offset: number, length: number): Promise<string> {
  const hash = createHash('sha256');
  if (typeof file !== 'string') return `sha256 ${hash.update(file.subarray(offset, offset + length)).digest('base64')}`;
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return `sha256 ${hash.update(buffer.subarray(0, bytesRead)).digest('base64')}`;
  } finally {
    await handle.close();
  }
}
