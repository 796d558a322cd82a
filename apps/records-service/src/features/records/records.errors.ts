import { ProblemException } from '@vault/platform';

export const destinationRoleTooWeak = () =>
  ProblemException.forbidden('Moving a record needs the owner or editor role on the destination vault.');

export const sameVault = () =>
  ProblemException.badRequest('The record is already in that vault.', [
    { field: 'destinationVaultId', message: 'destinationVaultId must be another vault' },
  ]);
