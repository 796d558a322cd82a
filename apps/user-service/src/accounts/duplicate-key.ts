import { USER_ERROR_CODES } from '@vault/contracts';
import { mapUniqueViolation, ProblemException, UniqueViolationProblems } from '@vault/platform';

/** Unique constraints of the accounts table (see the migration) and the conflict each means. */
const CONFLICTS: UniqueViolationProblems = {
  accounts_tenant_open_id_key: () =>
    ProblemException.conflict(USER_ERROR_CODES.accountExists, 'An account already exists for this identity.'),
  accounts_tenant_username_key: () =>
    ProblemException.conflict(USER_ERROR_CODES.usernameTaken, 'The username is already in use.'),
};

/** Turns a unique violation of the accounts table into its 409; rethrows anything else. */
export function rethrowAsConflict(err: unknown): never {
  return mapUniqueViolation(err, CONFLICTS);
}
