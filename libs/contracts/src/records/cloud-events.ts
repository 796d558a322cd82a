import { SUBJECTS } from '../events';
import { RECORDS_EVENT_PAYLOADS, VaultEventBase } from './events';
import { FILE_VERSION_EVENT_KINDS, FILE_VERSION_EVENT_PAYLOADS } from './file-versions';
import { FileChangedEvent, FileTextExtractedEvent } from './file-events';
import { EXPORT_EVENT_KINDS, EXPORT_EVENT_PAYLOADS } from './export-events';
import { TRASH_EVENT_KINDS, TRASH_EVENT_PAYLOADS } from './trash-events';
import type { WebhookEventType } from './webhook.dto';

/**
 * The CloudEvents type (`<entity>.<action>`) of each vault event subject shown to API
 * clients, in webhooks and in the change feed (others, such as licences, are not shown).
 */
export const VAULT_CLOUD_EVENT_TYPE_OF: Partial<Record<string, WebhookEventType>> = {
  [SUBJECTS.vaultCreated]: 'vault.created',
  [SUBJECTS.vaultUpdated]: 'vault.updated',
  [SUBJECTS.vaultDeleted]: 'vault.deleted',
  [SUBJECTS.vaultTransferred]: 'vault.transferred',
  [SUBJECTS.recordCreated]: 'record.created',
  [SUBJECTS.recordUpdated]: 'record.updated',
  [SUBJECTS.recordDeleted]: 'record.deleted',
  [SUBJECTS.recordTransferred]: 'record.transferred',
  [SUBJECTS.fileUploaded]: 'file.created',
  [SUBJECTS.fileUpdated]: 'file.updated',
  [SUBJECTS.fileDeleted]: 'file.deleted',
  [SUBJECTS.fileTextExtracted]: 'file.text.extracted',
  [SUBJECTS.collaboratorCreated]: 'collaborator.created',
  [SUBJECTS.collaboratorUpdated]: 'collaborator.updated',
  [SUBJECTS.collaboratorDeleted]: 'collaborator.deleted',
  ...Object.fromEntries(Object.entries(TRASH_EVENT_KINDS).map(([subject, kind]) => [subject, kind.type])),
  ...Object.fromEntries(Object.entries(FILE_VERSION_EVENT_KINDS).map(([subject, kind]) => [subject, kind.type])),
  ...Object.fromEntries(Object.entries(EXPORT_EVENT_KINDS).map(([subject, kind]) => [subject, kind.type])),
};

/** The contract class of each subject shown as a CloudEvent, to validate payloads on receipt. */
export const VAULT_CLOUD_EVENT_PAYLOADS: Record<string, new () => VaultEventBase> = {
  ...RECORDS_EVENT_PAYLOADS,
  [SUBJECTS.fileUploaded]: FileChangedEvent,
  [SUBJECTS.fileUpdated]: FileChangedEvent,
  [SUBJECTS.fileDeleted]: FileChangedEvent,
  ...TRASH_EVENT_PAYLOADS,
  ...FILE_VERSION_EVENT_PAYLOADS,
  [SUBJECTS.fileTextExtracted]: FileTextExtractedEvent,
  ...EXPORT_EVENT_PAYLOADS,
};

/** A CloudEvents 1.0 JSON event about a vault (docs/webhooks.md, Envelope; docs/change-feed.md). */
export interface VaultCloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: WebhookEventType;
  time: string;
  datacontenttype: 'application/json';
  vaultid: string;
  data: object;
}

/** The CloudEvent of event `id` of `type` in vault `vaultId`. */
export function vaultCloudEvent(
  id: string,
  type: WebhookEventType,
  vaultId: string,
  time: string,
  data: object,
): VaultCloudEvent {
  return {
    specversion: '1.0',
    id,
    source: `/vault/vault-id/${vaultId}`,
    type,
    time,
    datacontenttype: 'application/json',
    vaultid: vaultId,
    data,
  };
}
