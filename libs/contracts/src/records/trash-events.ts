import { SUBJECTS } from '../events';
import { IsISO8601, IsOptional, IsString } from 'class-validator';
import { RecordChangedEvent, VaultChangedEvent } from './events';
import { FileChangedEvent } from './file-events';

/**
 * Subjects of the trash lifecycle (docs/records-api.md, Trash; docs/webhooks.md): live →
 * trashed → purged, and trashed → restored. A DELETE still publishes its `*.deleted` event
 * as before; the `*.trashed` event follows it in the same transaction.
 */
export const TRASH_SUBJECTS = {
  vaultTrashed: SUBJECTS.vaultTrashed,
  vaultRestored: SUBJECTS.vaultRestored,
  vaultPurged: SUBJECTS.vaultPurged,
  recordTrashed: SUBJECTS.recordTrashed,
  recordRestored: SUBJECTS.recordRestored,
  recordPurged: SUBJECTS.recordPurged,
  fileTrashed: SUBJECTS.fileTrashed,
  fileRestored: SUBJECTS.fileRestored,
  filePurged: SUBJECTS.filePurged,
} as const;
export type TrashSubject = (typeof TRASH_SUBJECTS)[keyof typeof TRASH_SUBJECTS];

/** vault.vault.trashed|restored|purged.v1 */
export class VaultTrashEvent extends VaultChangedEvent {
  /** When the purger removes it (trashed only). */
  @IsOptional()
  @IsISO8601()
  purgeAt?: string;
}

/** vault.record.trashed|restored|purged.v1 */
export class RecordTrashEvent extends RecordChangedEvent {
  @IsOptional()
  @IsISO8601()
  purgeAt?: string;
}

/** vault.file.trashed|restored|purged.v1 */
export class FileTrashEvent extends FileChangedEvent {
  @IsOptional()
  @IsISO8601()
  purgeAt?: string;

  /** A restore under another name (onConflict=rename): the name it has now. */
  @IsOptional()
  @IsString()
  restoredAs?: string;
}

/** Payload class of each trash subject. */
export const TRASH_EVENT_PAYLOADS = {
  [TRASH_SUBJECTS.vaultTrashed]: VaultTrashEvent,
  [TRASH_SUBJECTS.vaultRestored]: VaultTrashEvent,
  [TRASH_SUBJECTS.vaultPurged]: VaultTrashEvent,
  [TRASH_SUBJECTS.recordTrashed]: RecordTrashEvent,
  [TRASH_SUBJECTS.recordRestored]: RecordTrashEvent,
  [TRASH_SUBJECTS.recordPurged]: RecordTrashEvent,
  [TRASH_SUBJECTS.fileTrashed]: FileTrashEvent,
  [TRASH_SUBJECTS.fileRestored]: FileTrashEvent,
  [TRASH_SUBJECTS.filePurged]: FileTrashEvent,
} as const;

/** The entity, log event type and action (activity log) and the CloudEvents type of each trash subject. */
export const TRASH_EVENT_KINDS = {
  [TRASH_SUBJECTS.vaultTrashed]: { entity: 'Vault', eventType: 'Delete', action: 'trashed', type: 'vault.trashed' },
  [TRASH_SUBJECTS.vaultRestored]: { entity: 'Vault', eventType: 'Update', action: 'restored', type: 'vault.restored' },
  [TRASH_SUBJECTS.vaultPurged]: { entity: 'Vault', eventType: 'Delete', action: 'purged', type: 'vault.purged' },
  [TRASH_SUBJECTS.recordTrashed]: { entity: 'Record', eventType: 'Delete', action: 'trashed', type: 'record.trashed' },
  [TRASH_SUBJECTS.recordRestored]: { entity: 'Record', eventType: 'Update', action: 'restored', type: 'record.restored' },
  [TRASH_SUBJECTS.recordPurged]: { entity: 'Record', eventType: 'Delete', action: 'purged', type: 'record.purged' },
  [TRASH_SUBJECTS.fileTrashed]: { entity: 'File', eventType: 'Delete', action: 'trashed', type: 'file.trashed' },
  [TRASH_SUBJECTS.fileRestored]: { entity: 'File', eventType: 'Update', action: 'restored', type: 'file.restored' },
  [TRASH_SUBJECTS.filePurged]: { entity: 'File', eventType: 'Delete', action: 'purged', type: 'file.purged' },
} as const;
