import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Every problem the record routes raise of their own. */

export const destinationRoleTooWeak = () =>
  ProblemException.of(COMMON_ERRORS.forbidden, 'Moving a record needs the owner or editor role on the destination vault.');

export const sameVault = () =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The record is already in that vault.', {
    errors: [{ field: 'destinationVaultId', message: 'destinationVaultId must be another vault' }],
  });
