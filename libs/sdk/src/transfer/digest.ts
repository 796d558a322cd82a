import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

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
