import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One activity log entry. Keyed by (event id, vault id): an event is logged
 * once per vault it concerns (a transfer is logged in both vaults). Stored
 * locale-neutral; `message`, `action` and `time` are rendered when read.
 */
@Entity('activity_log_entries')
export class ActivityLogEntryEntity {
  @PrimaryColumn({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @PrimaryColumn({ name: 'vault_id', type: 'uuid' })
  vaultId!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  entity!: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType!: string;

  /** Verb key (created, updated, deleted, transferredOut, transferredIn, uploaded). */
  @Column({ type: 'text' })
  action!: string;

  @Column({ name: 'actor_open_id', type: 'text' })
  actorOpenId!: string;

  @Column({ name: 'actor_name', type: 'text' })
  actorName!: string;

  @Column({ name: 'vault_name', type: 'text' })
  vaultName!: string;

  @Column({ name: 'record_id', type: 'uuid', nullable: true })
  recordId!: string | null;

  @Column({ name: 'record_name', type: 'text', nullable: true })
  recordName!: string | null;

  @Column({ name: 'file_name', type: 'text', nullable: true })
  fileName!: string | null;

  /** Extra facts for the message (the other vault of a transfer, changed fields, plan). */
  @Column({ type: 'jsonb', default: () => `'{}'::jsonb` })
  details!: Record<string, unknown>;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ name: 'logged_at', type: 'timestamptz', default: () => 'now()' })
  loggedAt!: Date;
}
