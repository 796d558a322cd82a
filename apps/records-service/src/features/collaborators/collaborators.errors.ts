import { COLLABORATOR_ERRORS, COMMON_ERRORS } from '@vault/contracts';
import { mapUniqueViolation, ProblemException } from '@vault/platform/errors';

/** Every problem the collaborator routes raise of their own (an unknown account: directory.errors). */

export const featureNotInPlan = (feature: string) =>
  ProblemException.of(COLLABORATOR_ERRORS.featureNotInPlan, `The vault's plan does not include ${feature}.`);

export const alreadyCollaborator = () =>
  ProblemException.of(COLLABORATOR_ERRORS.alreadyCollaborator, 'The account is already a member.');

export const collaboratorNotFound = () =>
  ProblemException.of(COLLABORATOR_ERRORS.collaboratorNotFound, 'There is no member with this collaborator id.');

export const ownerCannotBeRemoved = () =>
  ProblemException.of(
    COLLABORATOR_ERRORS.ownerCannotBeRemoved,
    'The owner cannot be removed or given another role; transfer the ownership first.',
  );

export const alreadyOwner = () => ProblemException.of(COMMON_ERRORS.conflict, 'The collaborator already owns the vault.');

export const vaultOwnerActive = () =>
  ProblemException.of(
    COLLABORATOR_ERRORS.vaultOwnerActive,
    "The vault's owner has an active account: only a vault whose owner deleted its account can be claimed.",
  );

export const onlyEditorsClaim = () =>
  ProblemException.of(COMMON_ERRORS.forbidden, 'Only a vault_editor of the vault may claim its ownership.');

export const onlyOwnersManage = () =>
  ProblemException.of(
    COMMON_ERRORS.forbidden,
    'Only the owner adds, changes and removes collaborators; a member may only remove itself.',
  );

/** A concurrent add of the same account lost the race on the membership key: the same 409. */
export const mapMemberRace = (err: unknown): never =>
  mapUniqueViolation(err, {
    vault_memberships_pkey: alreadyCollaborator,
    record_memberships_pkey: alreadyCollaborator,
  });
