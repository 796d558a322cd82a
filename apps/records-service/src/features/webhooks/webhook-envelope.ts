import {
  CollaboratorChangedEvent,
  FileChangedEvent,
  RecordChangedEvent,
  RecordTransferredEvent,
  VAULT_CLOUD_EVENT_PAYLOADS,
  VAULT_CLOUD_EVENT_TYPE_OF,
  vaultCloudEvent,
  VaultEventBase,
  WebhookEventType,
} from '@vault/contracts';

/** The webhook event type of each vault event subject (others, such as licences, are not sent). */
export const WEBHOOK_EVENT_OF = VAULT_CLOUD_EVENT_TYPE_OF;

/** The contract class of each subject a webhook is sent for, to validate payloads on receipt. */
export const WEBHOOK_PAYLOADS = VAULT_CLOUD_EVENT_PAYLOADS;

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
 * and the last known fields the event carries (and `purgeAt` for `*.trashed`).
 */
export function lastKnown(e: VaultEvent): Record<string, unknown> {
  const purgeAt = (e.payload as { purgeAt?: string }).purgeAt;
  return purgeAt ? { ...knownFields(e), purgeAt } : knownFields(e);
}

function knownFields(e: VaultEvent): Record<string, unknown> {
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
  return JSON.stringify(vaultCloudEvent(e.id, e.type, e.payload.vault.id, e.payload.occurredAt, data));
}
