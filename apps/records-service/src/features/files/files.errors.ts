import { ERROR_CODES, FieldProblem, FILE_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';

/** Every problem the record-file routes raise of their own (quota problems: plans.errors). */

export const fileNotFound = () => ProblemException.notFound('The file does not exist.');

export const fileNameTaken = () =>
  ProblemException.conflict(FILE_ERROR_CODES.fileNameTaken, 'The record already has a file with this name.');

export const staleCorrelationId = () =>
  ProblemException.conflict(
    FILE_ERROR_CODES.staleCorrelationId,
    'The correlationId is not the one of the file; reload the file list.',
  );

export const captionRequired = () =>
  ProblemException.badRequest('The request has 1 invalid field.', [
    { field: 'caption', message: 'caption is required for images' },
  ]);

export const checksumMismatch = (header: string) =>
  new ProblemException(400, FILE_ERROR_CODES.checksumMismatch, `The file does not match its ${header}.`);

export const rangeNotSatisfiable = (size: number) =>
  new ProblemException(416, FILE_ERROR_CODES.rangeNotSatisfiable, 'The range lies beyond the end of the file.', undefined, {
    'Content-Range': `bytes */${size}`,
  });

/**
 * The upload's queued removal was already carried out (or claimed) by the purge: the
 * upload took longer than FILE_UPLOAD_GRACE_SECONDS, so its bytes cannot be trusted.
 */
export const uploadExpired = () =>
  new ProblemException(
    503,
    ERROR_CODES.serviceUnavailable,
    'The upload took longer than the service keeps unconfirmed bytes and was dropped; send it again.',
  );

export const notMultipart = () =>
  new ProblemException(415, ERROR_CODES.unsupportedMediaType, 'An upload is multipart/form-data with the bytes in the part "file".');

export const missingFilePart = () =>
  new ProblemException(400, FILE_ERROR_CODES.missingFilePart, 'The upload has no file part named "file".', [
    { field: 'file', message: 'file is required' },
  ]);

export const invalidUploadFields = (fields: FieldProblem[]) =>
  ProblemException.badRequest(`The upload has ${fields.length} invalid field${fields.length === 1 ? '' : 's'}.`, fields);

export const fieldsAfterFilePart = (fields: string[]) =>
  ProblemException.badRequest(
    'Metadata fields go before the file part.',
    fields.map((field) => ({ field, message: `${field} is sent after the file part; send it before the file or in the query` })),
  );

export const oneFilePart = (field?: FieldProblem) =>
  ProblemException.badRequest('An upload carries exactly one file, in the part "file".', field ? [field] : undefined);

export const multipartRefused = (reason: string, field?: FieldProblem) =>
  ProblemException.badRequest(`The multipart body is refused: ${reason}.`, field ? [field] : undefined);

export const multipartMalformed = (reason: string) => ProblemException.badRequest(`The multipart body is malformed: ${reason}.`);
