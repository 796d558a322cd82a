import { COMMON_ERRORS, TRASH_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Problems of the trash, retention and legal holds. */

export const notInTrash = () => ProblemException.of(COMMON_ERRORS.notFound, 'No such item in the trash.');

export const parentInTrash = (parent: 'vault' | 'record') =>
  ProblemException.of(TRASH_ERRORS.parentInTrash, `The item's ${parent} is in the trash: restore the ${parent} first.`);

export const nameTaken = (name: string) =>
  ProblemException.of(
    TRASH_ERRORS.nameTaken,
    `The record has a live file named "${name}" now; restore with onConflict=rename to restore it under another name.`,
  );

export const heldBy = (hold: { id: string; name: string }) =>
  ProblemException.of(TRASH_ERRORS.legalHold, `The legal hold "${hold.name}" (${hold.id}) keeps it from being purged.`);

export const retainedUntil = (until: Date) =>
  ProblemException.of(
    TRASH_ERRORS.retentionPeriod,
    `The plan's retention period keeps it from being purged until ${until.toISOString()}.`,
  );
