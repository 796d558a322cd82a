import { COLLABORATOR_ERROR_CODES, ERROR_CODES } from '@vault/contracts';
import { mapUniqueViolation, ProblemException } from '@vault/platform';

export const featureNotInPlan = (feature: string) =>
  new ProblemException(403, COLLABORATOR_ERROR_CODES.featureNotInPlan, `The vault's plan does not include ${feature}.`);

export const alreadyCollaborator = () =>
  ProblemException.conflict(COLLABORATOR_ERROR_CODES.alreadyCollaborator, 'The account is already a member.');

export const collaboratorNotFound = () =>
  new ProblemException(
    404,
    COLLABORATOR_ERROR_CODES.collaboratorNotFound,
    'There is no member with this collaborator id.',
  );

export const ownerCannotBeRemoved = () =>
  ProblemException.conflict(
    COLLABORATOR_ERROR_CODES.ownerCannotBeRemoved,
    'The owner cannot be removed or given another role; transfer the ownership first.',
  );

export const alreadyOwner = () =>
  ProblemException.conflict(ERROR_CODES.conflict, 'The collaborator already owns the vault.');

export const vaultOwnerActive = () =>
  ProblemException.conflict(
    COLLABORATOR_ERROR_CODES.vaultOwnerActive,
    "The vault's owner has an active account: only a vault whose owner deleted its account can be claimed.",
  );

export const onlyEditorsClaim = () =>
  ProblemException.forbidden('Only a vault_editor of the vault may claim its ownership.');

export const onlyOwnersManage = () =>
  ProblemException.forbidden(
    'Only the owner adds, changes and removes collaborators; a member may only remove itself.',
  );

/** A concurrent add of the same account lost the race on the membership key: the same 409. */
export const mapMemberRace = (err: unknown): never =>
  mapUniqueViolation(err, {
    vault_memberships_pkey: alreadyCollaborator,
    record_memberships_pkey: alreadyCollaborator,
  });
