import { FILE_CHECKSUM_HEADER, FieldProblem, UploadFileMetadataDto } from '@vault/contracts';
import { flattenValidationErrors } from '@vault/platform/errors';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { invalidUploadFields as invalid } from '../files.errors';

type Fields = Record<string, unknown>;

/**
 * Upload metadata from the query string and the multipart fields sent before the
 * file part; a field given both ways must hold the same value. Unknown fields are
 * refused like in every JSON body.
 */
export function parseUploadMetadata(query: Fields, body: Fields): UploadFileMetadataDto {
  const problems: FieldProblem[] = [];
  const merged: Fields = { ...query };
  for (const [key, value] of Object.entries(body)) {
    if (key in merged && merged[key] !== value) {
      problems.push({ field: key, message: `${key} differs between the query and the form fields` });
    }
    merged[key] = value;
  }
  const dto = plainToInstance(UploadFileMetadataDto, merged);
  const errors = validateSync(dto, {
    whitelist: true,
    forbidNonWhitelisted: true,
    validationError: { target: false, value: false },
  });
  problems.push(...flattenValidationErrors(errors));
  if (problems.length > 0) throw invalid(problems);
  return dto;
}

/**
 * The optional client checksum (header `x-checksum-sha256`): 64 hex digits or the
 * base64 of the 32 digest bytes. Returns lower-case hex; a malformed value is a 400.
 */
export function parseChecksumHeader(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = Array.isArray(value) ? value.join(',') : value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return v.toLowerCase();
  if (/^[A-Za-z0-9+/]{43}=$/.test(v)) return Buffer.from(v, 'base64').toString('hex');
  throw invalid([
    { field: FILE_CHECKSUM_HEADER, message: `${FILE_CHECKSUM_HEADER} must be a SHA-256 in hex (64 digits) or base64` },
  ]);
}

const REPR_DIGEST = 'repr-digest';

/**
 * The SHA-256 of an RFC 9530 `Repr-Digest` field (a dictionary such as
 * `sha-256=:<base64>:, sha-512=:…:`), lower-case hex; undefined without a sha-256 member
 * (other algorithms are ignored, as RFC 9530 allows). A malformed sha-256 member is a 400.
 */
export function parseReprDigest(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const members = (Array.isArray(value) ? value.join(',') : value).split(',');
  for (const member of members) {
    const [name, ...rest] = member.split('=');
    if (name.trim().toLowerCase() !== 'sha-256') continue;
    const m = /^:([A-Za-z0-9+/]{43}=):$/.exec(rest.join('=').trim());
    if (!m) throw invalid([{ field: REPR_DIGEST, message: 'repr-digest sha-256 must be :<base64 of the 32 digest bytes>:' }]);
    return Buffer.from(m[1], 'base64').toString('hex');
  }
  return undefined;
}

/**
 * The client's SHA-256 of the uploaded file: `x-checksum-sha256`, or `Repr-Digest`'s
 * sha-256 (read as the digest of the file, the representation being stored); both given
 * must agree (400 otherwise).
 */
export function expectedFileDigest(headers: Record<string, string | string[] | undefined>): string | undefined {
  const checksum = parseChecksumHeader(headers[FILE_CHECKSUM_HEADER]);
  const digest = parseReprDigest(headers[REPR_DIGEST]);
  if (checksum !== undefined && digest !== undefined && checksum !== digest) {
    throw invalid([{ field: REPR_DIGEST, message: `repr-digest and ${FILE_CHECKSUM_HEADER} name different digests` }]);
  }
  return checksum ?? digest;
}

/** The `Repr-Digest` field of a stored file (its SHA-256, kept in hex). */
export const reprDigestOf = (sha256Hex: string) => `sha-256=:${Buffer.from(sha256Hex, 'hex').toString('base64')}:`;
