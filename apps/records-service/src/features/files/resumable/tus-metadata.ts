import { UploadFileMetadataDto } from '@vault/contracts';
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
export function parseTusMetadata(
  raw: Record<string, string | null> | undefined,
): TusFileMetadata {
  const { sha256, contentType, ...fields } = raw ?? {};
  const values = Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k, v ?? '']),
  );
  const metadata = parseUploadMetadata({}, values);
  return {
    metadata,
    sha256: sha256 === undefined ? undefined : parseSha256(sha256),
    mediaType: contentType
      ? sanitizeMediaType(contentType)
      : 'application/octet-stream',
  };
}

function parseSha256(value: string | null): string {
  const v = (value ?? '').trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return v.toLowerCase();
  if (/^[A-Za-z0-9+/]{43}=$/.test(v))
    return Buffer.from(v, 'base64').toString('hex');
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
export function parseUploadChecksum(
  value: string | null,
): ChunkChecksum | undefined {
  if (value === null) return undefined;
  const [algorithm, digest, ...rest] = value.trim().split(/\s+/);
  const known = CHUNK_ALGORITHMS.find((a) => a === algorithm?.toLowerCase());
  const bytes =
    digest && /^[A-Za-z0-9+/]+={0,2}$/.test(digest)
      ? Buffer.from(digest, 'base64')
      : undefined;
  if (
    !known ||
    !bytes ||
    rest.length > 0 ||
    bytes.length !== DIGEST_LENGTH[known]
  ) {
    throw invalid([
      {
        field: 'Upload-Checksum',
        message: `Upload-Checksum must be "<algorithm> <base64 digest>" with algorithm ${CHUNK_ALGORITHMS.join(' or ')}`,
      },
    ]);
  }
  return { algorithm: known, digest: bytes.toString('base64') };
}
