import { RECORDS_ERROR_CODES } from '@vault/contracts';
import { mapUniqueViolation, ProblemException } from '@vault/platform';

/** The unique index that keeps inbox names unique over all vaults. */
const EMAIL_USERNAME_INDEX = 'vaults_email_username_uq';

export const emailUsernameTaken = () =>
  ProblemException.conflict(RECORDS_ERROR_CODES.emailUsernameTaken, 'The inbox name is already in use.');

export const onlyOwnerChangesDefault = () =>
  ProblemException.forbidden('Only the vault owner can change whether it is the default vault.');

export const onlyOwnerChangesLicence = () => ProblemException.forbidden('Only the vault owner can change its licence.');

/** Turns a lost race on the inbox-name unique index into the same 409 as the pre-check. */
export const mapEmailRace = (err: unknown): never => mapUniqueViolation(err, { [EMAIL_USERNAME_INDEX]: emailUsernameTaken });
