import { ProblemException } from '@vault/platform';
import { QueryFailedError } from 'typeorm';

/** Unique constraints of the accounts table (see the migration) and the conflict each means. */
const CONFLICTS: Record<string, () => ProblemException> = {
  accounts_tenant_open_id_key: () =>
    ProblemException.conflict('account_exists', 'An account already exists for this identity.'),
  accounts_tenant_username_key: () =>
    ProblemException.conflict('username_taken', 'The username is already in use.'),
};

/** Turns a unique violation of the accounts table into its 409; rethrows anything else. */
export function rethrowAsConflict(err: unknown): never {
  if (err instanceof QueryFailedError) {
    const driver = err.driverError as { code?: string; constraint?: string };
    const conflict = driver.code === '23505' ? CONFLICTS[driver.constraint ?? ''] : undefined;
    if (conflict) throw conflict();
  }
  throw err;
}
