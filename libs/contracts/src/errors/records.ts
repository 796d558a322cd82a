import { COMMON_ERRORS } from './common';
import { codesOf, ErrorTable } from './entry';

/** Codes of the records module about vaults, records and plans. */
export const RECORDS_ERRORS = {
  maxRecordsReached: {
    code: 'max_records_reached',
    status: 409,
    meaning: "The vault already holds the records its plan allows.",
  },
  maxOwnedVaultsReached: {
    code: 'max_owned_vaults_reached',
    status: 409,
    meaning: "The account already owns the vaults its plans allow.",
  },
  emailUsernameTaken: {
    code: 'email_username_taken',
    status: 409,
    meaning: "The vault's inbox name is already in use.",
  },
  unknownLicenseKey: {
    code: 'unknown_license_key',
    status: 400,
    meaning: 'The licence key is not valid.',
  },
} as const satisfies ErrorTable;

/** Codes of the records module about record files. */
export const FILE_ERRORS = {
  fileNameTaken: {
    code: 'file_name_taken',
    status: 409,
    meaning: 'The record already has a file with this name.',
  },
  storageQuotaExceeded: {
    code: 'storage_quota_exceeded',
    status: 409,
    meaning: "The file does not fit in the storage the vault's plan allows.",
  },
  checksumMismatch: {
    code: 'checksum_mismatch',
    status: 400,
    meaning: 'The uploaded bytes do not match the x-checksum-sha256 header.',
  },
  uploadExceedsVaultStorage: {
    code: 'upload_exceeds_vault_storage',
    status: 413,
    meaning: "A resumable upload's Upload-Length does not fit in the storage the vault's plan allows (checked at creation).",
  },
  chunkChecksumMismatch: {
    code: 'chunk_checksum_mismatch',
    status: 460,
    meaning: 'A resumable upload chunk does not match its Upload-Checksum (tus checksum extension); the chunk was discarded.',
  },
  staleCorrelationId: {
    code: 'stale_correlation_id',
    status: 409,
    meaning: 'The correlationId is not the one of the stored file; reload the file list.',
  },
  missingFilePart: {
    code: 'missing_file_part',
    status: 400,
    meaning: 'The multipart upload has no part named "file".',
  },
} as const satisfies ErrorTable;

/** Machine codes of records-module conflicts and refusals. */
export const RECORDS_ERROR_CODES = codesOf(RECORDS_ERRORS);

/** Machine codes of record files (a download range uses the common code). */
export const FILE_ERROR_CODES = {
  ...codesOf(FILE_ERRORS),
  rangeNotSatisfiable: COMMON_ERRORS.rangeNotSatisfiable.code,
} as const;
