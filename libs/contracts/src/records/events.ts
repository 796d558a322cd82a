import { Type } from 'class-transformer';
import { IsBoolean, IsISO8601, IsOptional, IsString, IsUUID, ValidateNested } from 'class-validator';

/** Who caused an event. */
export class EventActor {
  @IsString()
  openId!: string;

  /** Organisation username from the token, or the openId when the token has none. */
  @IsString()
  username!: string;
}

export class EventVaultRef {
  @IsUUID()
  id!: string;

  @IsString()
  name!: string;
}

export class EventRecordRef {
  @IsUUID()
  id!: string;

  @IsString()
  name!: string;
}

/** Common part of every vault activity event (subjects `vault.*` of SUBJECTS). */
export class VaultEventBase {
  @IsString()
  tenantId!: string;

  @ValidateNested()
  @Type(() => EventActor)
  actor!: EventActor;

  @ValidateNested()
  @Type(() => EventVaultRef)
  vault!: EventVaultRef;

  @IsISO8601()
  occurredAt!: string;
}

/** vault.vault.created.v1, vault.vault.updated.v1, vault.vault.deleted.v1 */
export class VaultChangedEvent extends VaultEventBase {
  /** Names of the fields an update changed (empty for create and delete). */
  @IsString({ each: true })
  changedFields!: string[];
}

/** vault.license.created.v1 */
export class LicenseCreatedEvent extends VaultEventBase {
  @IsUUID()
  subscriptionId!: string;

  @IsString()
  planId!: string;

  @IsBoolean()
  sponsored!: boolean;

  @IsOptional()
  @IsString()
  sponsor?: string;
}

/** vault.record.created.v1, vault.record.updated.v1, vault.record.deleted.v1 */
export class RecordChangedEvent extends VaultEventBase {
  @ValidateNested()
  @Type(() => EventRecordRef)
  record!: EventRecordRef;

  @IsString()
  recordTypeName!: string;
}

/** vault.record.transferred.v1: `vault` is the source vault. */
export class RecordTransferredEvent extends RecordChangedEvent {
  @ValidateNested()
  @Type(() => EventVaultRef)
  destinationVault!: EventVaultRef;
}

/** The account a collaborator event is about. */
export class EventCollaboratorRef {
  @IsUUID()
  id!: string;

  @IsString()
  openId!: string;

  /** The account's username from the directory, or its openId when the directory has none. */
  @IsString()
  username!: string;

  /** Role after the change (before it, for a removal). */
  @IsString()
  role!: string;
}

/**
 * vault.collaborator.created.v1, vault.collaborator.updated.v1, vault.collaborator.deleted.v1
 * and vault.vault.transferred.v1 (`collaborator` is the new owner): a membership of the vault,
 * or of one record of it when `record` is set.
 */
export class CollaboratorChangedEvent extends VaultEventBase {
  @ValidateNested()
  @Type(() => EventCollaboratorRef)
  collaborator!: EventCollaboratorRef;

  @IsOptional()
  @ValidateNested()
  @Type(() => EventRecordRef)
  record?: EventRecordRef;

  /** The role before an update or a transfer. */
  @IsOptional()
  @IsString()
  previousRole?: string;

  /**
   * vault.vault.transferred.v1 only: true when the new owner claimed the ownership of a vault
   * whose owner's account was deleted (the claimant is the actor), absent for a transfer by
   * the owner.
   */
  @IsOptional()
  @IsBoolean()
  claimed?: boolean;
}

/** Event kinds of the activity log, derived from the subject. */
export const RECORDS_EVENT_KINDS = {
  'vault.vault.created.v1': { entity: 'Vault', eventType: 'Create' },
  'vault.vault.updated.v1': { entity: 'Vault', eventType: 'Update' },
  'vault.vault.deleted.v1': { entity: 'Vault', eventType: 'Delete' },
  'vault.license.created.v1': { entity: 'License', eventType: 'Create' },
  'vault.record.created.v1': { entity: 'Record', eventType: 'Create' },
  'vault.record.updated.v1': { entity: 'Record', eventType: 'Update' },
  'vault.record.deleted.v1': { entity: 'Record', eventType: 'Delete' },
  'vault.record.transferred.v1': { entity: 'Record', eventType: 'Update' },
  'vault.collaborator.created.v1': { entity: 'Network', eventType: 'Create' },
  'vault.collaborator.updated.v1': { entity: 'Network', eventType: 'Update' },
  'vault.collaborator.deleted.v1': { entity: 'Network', eventType: 'Delete' },
  'vault.vault.transferred.v1': { entity: 'Network', eventType: 'Update' },
} as const;

/** Payload class of each records-module subject, to validate a payload on receipt. */
export const RECORDS_EVENT_PAYLOADS: Record<keyof typeof RECORDS_EVENT_KINDS, new () => VaultEventBase> = {
  'vault.vault.created.v1': VaultChangedEvent,
  'vault.vault.updated.v1': VaultChangedEvent,
  'vault.vault.deleted.v1': VaultChangedEvent,
  'vault.license.created.v1': LicenseCreatedEvent,
  'vault.record.created.v1': RecordChangedEvent,
  'vault.record.updated.v1': RecordChangedEvent,
  'vault.record.deleted.v1': RecordChangedEvent,
  'vault.record.transferred.v1': RecordTransferredEvent,
  'vault.collaborator.created.v1': CollaboratorChangedEvent,
  'vault.collaborator.updated.v1': CollaboratorChangedEvent,
  'vault.collaborator.deleted.v1': CollaboratorChangedEvent,
  'vault.vault.transferred.v1': CollaboratorChangedEvent,
};
