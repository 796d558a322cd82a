import { COMMON_ERRORS, USER_ERRORS } from '@vault/contracts';
import { mapUniqueViolation, ProblemException } from '@vault/platform/errors';

/** Another identity's account, a deleted one or none: the same 404. */
export const accountNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'No such account.');

export const accountExists = () => ProblemException.of(USER_ERRORS.accountExists, 'An account already exists for this identity.');

export const usernameTaken = () => ProblemException.of(USER_ERRORS.usernameTaken, 'The username is already in use.');

/** Turns a unique violation of the accounts table (see the migration) into its 409; rethrows anything else. */
export const mapAccountConflict = (err: unknown): never =>
  mapUniqueViolation(err, { accounts_tenant_open_id_key: accountExists, accounts_tenant_username_key: usernameTaken });
