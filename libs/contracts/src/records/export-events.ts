import { SUBJECTS } from '../events';
import { VaultEventBase } from './events';
import { FileChangedEvent } from './file-events';

/**
 * Subjects of the exports a vault's owner makes (docs/encryption.md, Leaving with your
 * files): the vault's age identity, a file as a `.age` file. Both are security-relevant
 * reads, recorded in the activity log and offered to webhooks.
 */
export const EXPORT_SUBJECTS = {
  vaultKeyExported: SUBJECTS.vaultKeyExported,
  fileExported: SUBJECTS.fileExported,
} as const;
export type ExportSubject = (typeof EXPORT_SUBJECTS)[keyof typeof EXPORT_SUBJECTS];

/** vault.vault.key_exported.v1: the vault's age identity was downloaded. */
export class VaultKeyExportedEvent extends VaultEventBase {}

/** vault.file.exported.v1: a file's current bytes were downloaded as a `.age` file. */
export class FileExportedEvent extends FileChangedEvent {}

/** Payload class of each export subject. */
export const EXPORT_EVENT_PAYLOADS = {
  [EXPORT_SUBJECTS.vaultKeyExported]: VaultKeyExportedEvent,
  [EXPORT_SUBJECTS.fileExported]: FileExportedEvent,
} as const;

/** The entity, log event type and action (activity log) and the CloudEvents type of each export subject. */
export const EXPORT_EVENT_KINDS = {
  [EXPORT_SUBJECTS.vaultKeyExported]: { entity: 'Vault', eventType: 'Export', action: 'keyExported', type: 'vault.key.exported' },
  [EXPORT_SUBJECTS.fileExported]: { entity: 'File', eventType: 'Export', action: 'exported', type: 'file.exported' },
} as const;
