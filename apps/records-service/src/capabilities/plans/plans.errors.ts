import { COMMON_ERRORS, FILE_ERRORS, RECORDS_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Every refusal of a plan limit or a licence. */

const MiB = 1024 * 1024;

export const unknownLicenseKey = () =>
  ProblemException.of(RECORDS_ERRORS.unknownLicenseKey, 'The licence key is not valid.', {
    errors: [{ field: 'licenseKey', message: 'licenseKey is not a known licence key' }],
  });

export const maxOwnedVaultsReached = (max: number) =>
  ProblemException.of(RECORDS_ERRORS.maxOwnedVaultsReached, `The account already owns the ${max} vaults its plan allows.`);

export const maxRecordsReached = (max: number) =>
  ProblemException.of(RECORDS_ERRORS.maxRecordsReached, `The vault already holds the ${max} records its plan allows.`);

export const payloadTooLarge = (maxBytes: number) =>
  ProblemException.of(
    COMMON_ERRORS.payloadTooLarge,
    `The file is larger than the ${Math.floor(maxBytes / MiB)} MB the vault's plan allows per upload.`,
  );

export const storageQuotaExceeded = () =>
  ProblemException.of(FILE_ERRORS.storageQuotaExceeded, "The file does not fit in the storage the vault's plan allows.");
