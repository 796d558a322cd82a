import {
  CollaboratorChangedEvent,
  FileChangedEvent,
  RECORDS_EVENT_PAYLOADS,
  RecordChangedEvent,
  RecordTransferredEvent,
  SUBJECTS,
  VaultEventBase,
  WebhookEventType,
} from '@vault/contracts';

/** The webhook event type of each vault event subject (others, such as licences, are not sent). */
export const WEBHOOK_EVENT_OF: Partial<Record<string, WebhookEventType>> = {
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
  [SUBJECTS.collaboratorCreated]: 'collaborator.created',
  [SUBJECTS.collaboratorUpdated]: 'collaborator.updated',
  [SUBJECTS.collaboratorDeleted]: 'collaborator.deleted',
};

/** The contract class of each subject a webhook is sent for, to validate payloads on receipt. */
export const WEBHOOK_PAYLOADS: Record<string, new () => VaultEventBase> = {
  ...RECORDS_EVENT_PAYLOADS,
  [SUBJECTS.fileUploaded]: FileChangedEvent,
  [SUBJECTS.fileUpdated]: FileChangedEvent,
  [SUBJECTS.fileDeleted]: FileChangedEvent,
};

/** One vault event as the dispatcher receives it from the stream. */
export interface VaultEvent {
  id: string;
  subject: string;
  sequence: number;
  type: WebhookEventType;
  payload: VaultEventBase;
}

/** Vaults whose subscriptions get an event: its vault, and the destination of a record transfer. */
export function eventVaults(e: VaultEvent): string[] {
  const p = e.payload;
  return p instanceof RecordTransferredEvent ? [p.vault.id, p.destinationVault.id] : [p.vault.id];
}

/**
 * What `data` falls back to when the resource no longer exists (deletions): its ids
 * and the last known fields the event carries.
 */
export function lastKnown(e: VaultEvent): Record<string, unknown> {
  const p = e.payload;
  if (p instanceof FileChangedEvent) {
    return {
      fileName: p.fileName,
      correlationId: p.correlationId,
      fileType: p.fileType,
      fileSize: p.fileSize,
      recordDetail: p.record.id,
    };
  }
  if (p instanceof CollaboratorChangedEvent) {
    const c = p.collaborator;
    return { id: c.id, openId: c.openId, username: c.username, role: c.role, ...(p.record ? { recordId: p.record.id } : {}) };
  }
  if (p instanceof RecordChangedEvent) return { id: p.record.id, name: p.record.name, recordTypeName: p.recordTypeName };
  return { id: p.vault.id, name: p.vault.name };
}

/** The CloudEvents 1.0 JSON body of a delivery (docs/webhooks.md, Envelope). */
export function envelope(e: VaultEvent, data: object): string {
  return JSON.stringify({
    specversion: '1.0',
    id: e.id,
    source: `/vault/vault-id/${e.payload.vault.id}`,
    type: e.type,
    time: e.payload.occurredAt,
    datacontenttype: 'application/json',
    vaultid: e.payload.vault.id,
    data,
  });
}
