import type { CollaboratorChangedEvent, FileChangedEvent, Principal, VaultEventBase } from '@vault/contracts';

/** Who causes an event: the caller, or an account acting through user-service. */
type Actor = Pick<Principal, 'tenantId' | 'openId' | 'username'>;

/** The name shown for the caller (lastModifiedBy, uploader): its username, else its openId. */
export const actorName = (p: Actor) => p.username ?? p.openId;

/** The common part of an event: tenant, actor and vault, stamped now. */
export function eventBase(principal: Actor, vault: { id: string; name: string }): VaultEventBase {
  return {
    tenantId: principal.tenantId,
    actor: { openId: principal.openId, username: actorName(principal) },
    vault: { id: vault.id, name: vault.name },
    occurredAt: new Date().toISOString(),
  };
}

/** A membership as a collaborator event names it (the account's username, else its openId). */
export interface EventMember {
  id: string;
  openId: string;
  username: string | null;
  role: string;
}

/** What a collaborator event says of the change besides the membership: the role before it, whether it was a claim. */
export type MemberChange = Pick<CollaboratorChangedEvent, 'previousRole' | 'claimed'>;

/** A collaborator event: the membership of the vault, or of one of its records when `record` is given. */
export function collaboratorEvent(
  base: VaultEventBase,
  member: EventMember,
  record?: { id: string; name: string } | null,
  change: MemberChange = {},
): CollaboratorChangedEvent {
  return {
    ...base,
    collaborator: { id: member.id, openId: member.openId, username: member.username ?? member.openId, role: member.role },
    ...(record ? { record: { id: record.id, name: record.name } } : {}),
    ...(change.previousRole ? { previousRole: change.previousRole } : {}),
    ...(change.claimed ? { claimed: true } : {}),
  };
}

/** What a file event names of its file. */
export type EventFile = Pick<FileChangedEvent, 'fileName' | 'correlationId' | 'fileType'> & { size: number };

/** A file event: the record (with its type's name) and the file, as the file routes show them. */
export function fileEvent(
  base: VaultEventBase,
  record: { id: string; name: string },
  recordTypeName: string,
  file: EventFile,
): FileChangedEvent {
  return {
    ...base,
    record: { id: record.id, name: record.name },
    recordTypeName,
    fileName: file.fileName,
    correlationId: file.correlationId,
    fileType: file.fileType,
    fileSize: file.size,
  };
}
