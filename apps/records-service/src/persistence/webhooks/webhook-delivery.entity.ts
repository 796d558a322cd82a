import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event for one webhook subscription: its signed body and the outcome of its attempts. */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  @Column({ name: 'vault_id', type: 'uuid' })
  vaultId!: string;

  /** The event id (outbox row id): the webhook-id header of every attempt. */
  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @Column({ name: 'event_type', type: 'text' })
  eventType!: string;

  /** Position of the event in the vault events stream: the delivery order. */
  @Column({ name: 'stream_seq', type: 'bigint' })
  streamSeq!: string;

  /** The CloudEvents JSON body, built once, sent unchanged on every attempt. */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'text', default: 'pending' })
  status!: WebhookDeliveryStatus;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ name: 'last_status_code', type: 'int', nullable: true })
  lastStatusCode!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'last_response_excerpt', type: 'text', nullable: true })
  lastResponseExcerpt!: string | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  /** While an attempt is in flight: when its lease runs out (null otherwise). */
  @Column({ name: 'leased_until', type: 'timestamptz', nullable: true })
  leasedUntil!: Date | null;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
