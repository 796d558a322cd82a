import { ERROR_CODES, FILE_ERROR_CODES, RECORDS_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';

const MiB = 1024 * 1024;

export const unknownLicenseKey = () =>
  new ProblemException(400, RECORDS_ERROR_CODES.unknownLicenseKey, 'The licence key is not valid.', [
    { field: 'licenseKey', message: 'licenseKey is not a known licence key' },
  ]);

export const maxOwnedVaultsReached = (max: number) =>
  ProblemException.conflict(
    RECORDS_ERROR_CODES.maxOwnedVaultsReached,
    `The account already owns the ${max} vaults its plan allows.`,
  );

export const maxRecordsReached = (max: number) =>
  ProblemException.conflict(RECORDS_ERROR_CODES.maxRecordsReached, `The vault already holds the ${max} records its plan allows.`);

export const payloadTooLarge = (maxBytes: number) =>
  new ProblemException(
    413,
    ERROR_CODES.payloadTooLarge,
    `The file is larger than the ${Math.floor(maxBytes / MiB)} MB the vault's plan allows per upload.`,
  );

export const storageQuotaExceeded = () =>
  ProblemException.conflict(
    FILE_ERROR_CODES.storageQuotaExceeded,
    "The file does not fit in the storage the vault's plan allows.",
  );
