import { FieldProblem, UploadFileMetadataDto } from '@vault/contracts';
import { invalidUploadFields as invalid } from '../files.errors';
import { sanitizeMediaType } from '../upload/multipart';
import { parseUploadMetadata } from '../upload/upload-metadata';
import type { ChunkAlgorithm } from '../../../capabilities/storage/file-bytes.service';

/** What `Upload-Metadata` of a tus creation says about the file. */
export interface TusFileMetadata {
  metadata: UploadFileMetadataDto;
  /** Lower-case hex SHA-256 of the whole file, when the client gave `sha256`. */
  sha256?: string;
  mediaType: string;
}

/**
 * `Upload-Metadata` (already decoded by the tus server): the fields of a multipart
 * upload (fileName, correlationId, fileType, caption, uploadTitle, uploadDetail,
 * fileExtension) with the same rules, plus `sha256` (hex or base64) and `contentType`
 * (the media type served on download, application/octet-stream without it). Any other
 * key is a 400, like an unknown field anywhere.
 */
export function parseTusMetadata(raw: Record<string, string | null> | undefined): TusFileMetadata {
  const { sha256, contentType, ...fields } = raw ?? {};
  const values = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v ?? '']));
  const metadata = parseUploadMetadata({}, values);
  return {
    metadata,
    sha256: sha256 === undefined ? undefined : parseSha256(sha256),
    mediaType: contentType ? sanitizeMediaType(contentType) : 'application/octet-stream',
  };
}

function parseSha256(value: string | null): string {
  const v = (value ?? '').trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return v.toLowerCase();
  if (/^[A-Za-z0-9+/]{43}=$/.test(v)) return Buffer.from(v, 'base64').toString('hex');
  throw invalid([
    {
      field: 'sha256',
      message: 'sha256 must be a SHA-256 in hex (64 digits) or base64',
    },
  ]);
}

/** `Upload-Checksum: <algorithm> <base64 digest>` of one chunk (tus checksum extension). */
export interface ChunkChecksum {
  algorithm: ChunkAlgorithm;
  digest: string;
}

export const CHUNK_ALGORITHMS: readonly ChunkAlgorithm[] = ['sha1', 'sha256'];

const DIGEST_LENGTH: Record<ChunkAlgorithm, number> = { sha1: 20, sha256: 32 };

/** Parses Upload-Checksum; an unknown algorithm or a malformed value is a 400 (tus 1.0). */
export function parseUploadChecksum(value: string | null): ChunkChecksum | undefined {
  if (value === null) return undefined;
  const [algorithm, digest, ...rest] = value.trim().split(/\s+/);
  const known = CHUNK_ALGORITHMS.find((a) => a === algorithm?.toLowerCase());
  const bytes = digest && /^[A-Za-z0-9+/]+={0,2}$/.test(digest) ? Buffer.from(digest, 'base64') : undefined;
  if (!known || !bytes || rest.length > 0 || bytes.length !== DIGEST_LENGTH[known]) {
    throw invalid([
      {
        field: 'Upload-Checksum',
        message: `Upload-Checksum must be "<algorithm> <base64 digest>" with algorithm ${CHUNK_ALGORITHMS.join(' or ')}`,
      },
    ]);
  }
  return { algorithm: known, digest: bytes.toString('base64') };
}

/**
 * The first value of a raw `Upload-Metadata` header whose bytes are not UTF-8, as a field
 * problem naming its key and the offset of the first bad byte (tus would decode it with
 * replacement characters); undefined when every value is text or the header is malformed
 * (@tus/server refuses that with 400).
 */
export function invalidMetadataText(header: string | undefined): FieldProblem | undefined {
  for (const pair of (header ?? '').split(',')) {
    const [key, value] = pair.trim().split(' ');
    if (!key || !value) continue;
    const at = firstNonUtf8Byte(Buffer.from(value, 'base64'));
    if (at >= 0) return { field: key, message: `${key} is not valid UTF-8 (byte ${at} of its value)` };
  }
  return undefined;
}

/** The offset of the first byte that does not belong to a well-formed UTF-8 sequence, or -1. */
export function firstNonUtf8Byte(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    const [n, min, max] =
      c < 0x80
        ? [0, 0, 0]
        : c >= 0xc2 && c <= 0xdf
          ? [1, 0x80, 0xbf]
          : c === 0xe0
            ? [2, 0xa0, 0xbf]
            : c === 0xed
              ? [2, 0x80, 0x9f]
              : c >= 0xe1 && c <= 0xef
                ? [2, 0x80, 0xbf]
                : c === 0xf0
                  ? [3, 0x90, 0xbf]
                  : c >= 0xf1 && c <= 0xf3
                    ? [3, 0x80, 0xbf]
                    : c === 0xf4
                      ? [3, 0x80, 0x8f]
                      : [-1, 0, 0];
    if (n < 0) return i;
    for (let k = 1; k <= n; k++) {
      const next = b[i + k];
      const [lo, hi] = k === 1 ? [min, max] : [0x80, 0xbf];
      if (next === undefined || next < lo || next > hi) return next === undefined ? i : i + k;
    }
    i += n + 1;
  }
  return -1;
}
