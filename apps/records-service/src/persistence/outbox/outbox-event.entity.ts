import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Transactional outbox: one row per event, written in the transaction of the
 * change. A relay publishes unpublished rows and sets published_at.
 */
@Entity('outbox_events')
export class OutboxEventEntity {
  /** Event id; becomes the Nats-Msg-Id on delivery. */
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'vault_id', type: 'uuid' })
  vaultId!: string;

  @Column({ type: 'jsonb' })
  payload!: object;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  /** W3C trace context of the change (JSON of traceparent/tracestate); null while tracing is off. */
  @Column({ name: 'trace_context', type: 'text', nullable: true })
  traceContext!: string | null;
}
