import { COMMON_ERRORS, FieldProblem, FILE_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Every problem the record-file routes raise of their own (quota problems: plans.errors). */

const invalid = (detail: string, errors?: FieldProblem[]) =>
  ProblemException.of(COMMON_ERRORS.validationFailed, detail, { errors });

export const fileNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The file does not exist.');

export const fileNameTaken = () =>
  ProblemException.of(FILE_ERRORS.fileNameTaken, 'The record already has a file with this name.');

export const staleCorrelationId = () =>
  ProblemException.of(FILE_ERRORS.staleCorrelationId, 'The correlationId is not the one of the file; reload the file list.');

export const captionRequired = () =>
  invalid('The request has 1 invalid field.', [{ field: 'caption', message: 'caption is required for images' }]);

export const checksumMismatch = (header: string) =>
  ProblemException.of(FILE_ERRORS.checksumMismatch, `The file does not match its ${header}.`);

export const rangeNotSatisfiable = (size: number) =>
  ProblemException.of(COMMON_ERRORS.rangeNotSatisfiable, 'The range lies beyond the end of the file.', {
    headers: { 'Content-Range': `bytes */${size}` },
  });

/**
 * The upload's queued removal was already carried out (or claimed) by the purge: the
 * upload took longer than FILE_UPLOAD_GRACE_SECONDS, so its bytes cannot be trusted.
 */
export const uploadExpired = () =>
  ProblemException.of(
    COMMON_ERRORS.serviceUnavailable,
    'The upload took longer than the service keeps unconfirmed bytes and was dropped; send it again.',
  );

export const notMultipart = () =>
  ProblemException.of(COMMON_ERRORS.unsupportedMediaType, 'An upload is multipart/form-data with the bytes in the part "file".');

export const missingFilePart = () =>
  ProblemException.of(FILE_ERRORS.missingFilePart, 'The upload has no file part named "file".', {
    errors: [{ field: 'file', message: 'file is required' }],
  });

export const invalidUploadFields = (fields: FieldProblem[]) =>
  invalid(`The upload has ${fields.length} invalid field${fields.length === 1 ? '' : 's'}.`, fields);

export const fieldsAfterFilePart = (fields: string[]) =>
  invalid(
    'Metadata fields go before the file part.',
    fields.map((field) => ({ field, message: `${field} is sent after the file part; send it before the file or in the query` })),
  );

export const oneFilePart = (field?: FieldProblem) =>
  invalid('An upload carries exactly one file, in the part "file".', field ? [field] : undefined);

export const multipartRefused = (reason: string, field?: FieldProblem) =>
  invalid(`The multipart body is refused: ${reason}.`, field ? [field] : undefined);

export const multipartMalformed = (reason: string) => invalid(`The multipart body is malformed: ${reason}.`);

/* Resumable uploads (tus) */

/** Retry-After (seconds) of a creation refused for an open-uploads cap: uploads end at their own pace. */
const OPEN_UPLOADS_RETRY_AFTER = '60';

export const uploadsFull = (max: number, of: 'caller' | 'tenant' = 'caller') =>
  ProblemException.of(
    COMMON_ERRORS.tooManyRequests,
    of === 'caller'
      ? `At most ${max} resumable uploads may be open at once; finish or terminate one.`
      : `The tenant has ${max} resumable uploads open, its most at once; finish or terminate one.`,
    { headers: { 'Retry-After': OPEN_UPLOADS_RETRY_AFTER } },
  );

/** A PATCH beyond the concurrent chunks a caller (or its tenant) may send on one instance. */
export const uploadWritesFull = (max: number, of: 'caller' | 'tenant', retryAfterSeconds: number) =>
  ProblemException.of(
    COMMON_ERRORS.tooManyRequests,
    `At most ${max} chunks of resumable uploads may be sent at once by ${of === 'caller' ? 'one caller' : 'the callers of one tenant'}; retry when one has ended.`,
    { headers: { 'Retry-After': String(retryAfterSeconds) } },
  );

/** The chunk came slower than the minimum body rate: what arrived is kept (Upload-Offset). */
export const uploadBodyTooSlow = (bytesPerSecond: number, graceSeconds: number, headers: Record<string, string>) =>
  ProblemException.of(
    FILE_ERRORS.uploadBodyTooSlow,
    `The chunk arrived slower than ${bytesPerSecond} bytes/s for ${graceSeconds} s; the bytes received are kept (Upload-Offset): resume from there.`,
    { headers },
  );

/** This instance holds as many upload locks as it may, or its lock sessions do not answer. */
export const uploadLocksUnavailable = () =>
  ProblemException.of(COMMON_ERRORS.serviceUnavailable, 'The upload cannot be locked right now; retry shortly.', {
    headers: { 'Retry-After': '1' },
  });

/** tus answers the vault quota at creation with 413 (docs/files.md); the multipart upload says 409. */
export const uploadExceedsVaultStorage = () =>
  ProblemException.of(FILE_ERRORS.uploadExceedsVaultStorage, "The file does not fit in the storage the vault's plan allows.");

export const chunkBeyondLength = () => ProblemException.of(COMMON_ERRORS.payloadTooLarge, 'The chunk goes beyond Upload-Length.');

export const chunkChecksumMismatch = () =>
  ProblemException.of(FILE_ERRORS.chunkChecksumMismatch, 'The chunk does not match its Upload-Checksum; it was discarded.');

export const uploadLocked = () =>
  ProblemException.of(
    FILE_ERRORS.uploadLocked,
    'Another request is writing to this upload; retry once it ends (HEAD gives the offset).',
  );

/* tus refusals before @tus/server takes the request (resumable/tus-preconditions) */

export const tusVersionRefused = (sent: string | undefined, version: string) =>
  ProblemException.of(
    COMMON_ERRORS.preconditionFailed,
    sent === undefined
      ? 'Tus-Resumable Required'
      : `Tus-Resumable ${sent.slice(0, 64)} is not supported; this server speaks tus ${version}.`,
    { headers: { 'Tus-Version': version } },
  );

export const tusExtensionNotOffered = (header: string, extensions: string) =>
  ProblemException.of(
    COMMON_ERRORS.validationFailed,
    `${header} belongs to a tus extension this server does not offer (Tus-Extension: ${extensions}).`,
    { errors: [{ field: header, message: `${header} is not supported` }], headers: { 'Tus-Extension': extensions } },
  );

export const tusUploadNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The upload does not exist.');

export const tusContentTypeRefused = (sent: string | undefined, expected: string) =>
  ProblemException.of(
    COMMON_ERRORS.unsupportedMediaType,
    sent === undefined
      ? `A chunk is sent as ${expected}; the request has no Content-Type.`
      : `A chunk is sent as ${expected}, not ${sent.slice(0, 64)}.`,
  );

export const tusBadHeader = (header: string, message: string) => invalid(`${message}.`, [{ field: header, message }]);
