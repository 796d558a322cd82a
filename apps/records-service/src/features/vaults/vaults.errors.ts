import { COMMON_ERRORS, RECORDS_ERRORS } from '@vault/contracts';
import { mapUniqueViolation, ProblemException } from '@vault/platform/errors';

/** Every problem the vault routes raise of their own. */

/** The unique index that keeps inbox names unique over all vaults. */
const EMAIL_USERNAME_INDEX = 'vaults_email_username_uq';

export const emailUsernameTaken = () =>
  ProblemException.of(RECORDS_ERRORS.emailUsernameTaken, 'The inbox name is already in use.');

export const onlyOwnerChangesDefault = () =>
  ProblemException.of(COMMON_ERRORS.forbidden, 'Only the vault owner can change whether it is the default vault.');

export const onlyOwnerChangesLicence = () =>
  ProblemException.of(COMMON_ERRORS.forbidden, 'Only the vault owner can change its licence.');

/** Turns a lost race on the inbox-name unique index into the same 409 as the pre-check. */
export const mapEmailRace = (err: unknown): never => mapUniqueViolation(err, { [EMAIL_USERNAME_INDEX]: emailUsernameTaken });
