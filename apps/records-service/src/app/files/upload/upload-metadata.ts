import { FILE_CHECKSUM_HEADER, FieldProblem, UploadFileMetadataDto } from '@vault/contracts';
import { flattenValidationErrors, ProblemException } from '@vault/platform';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

type Fields = Record<string, unknown>;

const invalid = (fields: FieldProblem[]) =>
  ProblemException.badRequest(
    `The upload has ${fields.length} invalid field${fields.length === 1 ? '' : 's'}.`,
    fields,
  );

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
