import {
  CollaboratorChangedEvent,
  EXPORT_EVENT_KINDS,
  EXPORT_EVENT_PAYLOADS,
  FILE_VERSION_EVENT_KINDS,
  FILE_VERSION_EVENT_PAYLOADS,
  FileChangedEvent,
  FileTextExtractedEvent,
  FileVersionEvent,
  LicenseCreatedEvent,
  RECORDS_EVENT_KINDS,
  RECORDS_EVENT_PAYLOADS,
  RecordChangedEvent,
  RecordTransferredEvent,
  SUBJECTS,
  TRASH_EVENT_KINDS,
  TRASH_EVENT_PAYLOADS,
  VaultChangedEvent,
  VaultEventBase,
} from '@vault/contracts';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import type { ActivityLogRow } from '../../persistence/activity-log/activity-log.repository';

/** Raised for an event the log cannot accept (unknown subject or payload not matching its class). */
export class InvalidEventError extends Error {}

/** Columns of one log row, locale-neutral. */
export type LogRow = ActivityLogRow;

const KINDS: Record<string, { entity: string; eventType: string; action?: string }> = {
  ...RECORDS_EVENT_KINDS,
  [SUBJECTS.fileUploaded]: { entity: 'File', eventType: 'Create' },
  [SUBJECTS.fileUpdated]: { entity: 'File', eventType: 'Update' },
  [SUBJECTS.fileDeleted]: { entity: 'File', eventType: 'Delete' },
  ...TRASH_EVENT_KINDS,
  ...FILE_VERSION_EVENT_KINDS,
  ...EXPORT_EVENT_KINDS,
};

/** Contract class of each logged subject; payloads are validated against it on receipt. */
export const LOGGED_EVENT_PAYLOADS: Record<string, new () => VaultEventBase> = {
  ...RECORDS_EVENT_PAYLOADS,
  [SUBJECTS.fileUploaded]: FileChangedEvent,
  [SUBJECTS.fileUpdated]: FileChangedEvent,
  [SUBJECTS.fileDeleted]: FileChangedEvent,
  ...TRASH_EVENT_PAYLOADS,
  ...FILE_VERSION_EVENT_PAYLOADS,
  ...EXPORT_EVENT_PAYLOADS,
  // accepted and not logged (no KINDS entry): the pipeline reading a file is not a person's act
  [SUBJECTS.fileTextExtracted]: FileTextExtractedEvent,
};

const VERBS: Record<string, string> = {
  Create: 'created',
  Update: 'updated',
  Delete: 'deleted',
};

/** Parses and validates an event body against its contract class. */
export function parseEvent(subject: string, body: unknown): VaultEventBase {
  const cls = LOGGED_EVENT_PAYLOADS[subject];
  if (!cls) throw new InvalidEventError(`no activity log mapping for subject ${subject}`);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidEventError('payload is not a JSON object');
  }
  const event = plainToInstance(cls, body);
  const errors = validateSync(event, { forbidUnknownValues: true });
  if (errors.length > 0) {
    const fields = errors.map((e) => e.property).join(', ');
    throw new InvalidEventError(`payload of ${subject} is invalid (${fields})`);
  }
  return event;
}

/** The log rows of one event: one per vault it concerns (two for a transfer). */
export function toLogRows(eventId: string, subject: string, event: VaultEventBase): LogRow[] {
  const kind = KINDS[subject];
  if (!kind) return [];
  const base: LogRow = {
    eventId,
    vaultId: event.vault.id,
    tenantId: event.tenantId,
    subject,
    entity: kind.entity,
    eventType: kind.eventType,
    action: kind.action ?? VERBS[kind.eventType],
    actorOpenId: event.actor.openId,
    actorName: event.actor.username,
    vaultName: event.vault.name,
    recordId: null,
    recordName: null,
    fileName: null,
    details: {},
    occurredAt: new Date(event.occurredAt),
  };
  if (event instanceof VaultChangedEvent) {
    return [{ ...base, details: { changedFields: event.changedFields } }];
  }
  if (event instanceof LicenseCreatedEvent) {
    return [{ ...base, details: { planId: event.planId, sponsored: event.sponsored } }];
  }
  if (event instanceof FileChangedEvent) {
    const action = subject === SUBJECTS.fileUploaded ? 'uploaded' : (KINDS[subject].action ?? base.action);
    const details = event instanceof FileVersionEvent ? { versionId: event.versionId, versionNumber: event.versionNumber } : {};
    return [{ ...base, action, details, recordId: event.record.id, recordName: event.record.name, fileName: event.fileName }];
  }
  if (event instanceof RecordTransferredEvent) {
    const record = { recordId: event.record.id, recordName: event.record.name };
    const source = { id: event.vault.id, name: event.vault.name };
    const destination = { id: event.destinationVault.id, name: event.destinationVault.name };
    return [
      { ...base, ...record, action: 'transferredOut', details: { otherVault: destination } },
      {
        ...base,
        ...record,
        vaultId: destination.id,
        vaultName: destination.name,
        action: 'transferredIn',
        details: { otherVault: source },
      },
    ];
  }
  if (event instanceof CollaboratorChangedEvent) {
    return [collaboratorRow(base, subject, event)];
  }
  if (event instanceof RecordChangedEvent) {
    return [{ ...base, recordId: event.record.id, recordName: event.record.name }];
  }
  return [base];
}

/**
 * Actions of the Network entries: shared, roleChanged, unshared, ownershipTransferred, and
 * ownershipClaimed for a vault.transferred event that is a claim (`claimed`).
 */
const COLLABORATOR_ACTIONS: Record<string, string> = {
  [SUBJECTS.collaboratorCreated]: 'shared',
  [SUBJECTS.collaboratorUpdated]: 'roleChanged',
  [SUBJECTS.collaboratorDeleted]: 'unshared',
  [SUBJECTS.vaultTransferred]: 'ownershipTransferred',
};

function collaboratorRow(base: LogRow, subject: string, event: CollaboratorChangedEvent): LogRow {
  const { openId, username, role } = event.collaborator;
  const claim = subject === SUBJECTS.vaultTransferred && event.claimed === true;
  return {
    ...base,
    action: claim ? 'ownershipClaimed' : COLLABORATOR_ACTIONS[subject],
    recordId: event.record?.id ?? null,
    recordName: event.record?.name ?? null,
    details: { collaborator: { openId, username }, role, ...(event.previousRole ? { previousRole: event.previousRole } : {}) },
  };
}
