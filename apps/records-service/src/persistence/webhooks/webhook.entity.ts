import type { WebhookDisabledCode } from '@vault/contracts';
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A webhook subscription of a vault (docs/webhooks.md). */
@Entity('webhooks')
export class WebhookEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'vault_id', type: 'uuid' })
  vaultId!: string;

  @Column({ type: 'text' })
  url!: string;

  /** Event types (`record.created`…) or `*`. */
  @Column({ type: 'text', array: true })
  events!: string[];

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  /** Signing key, `whsec_` + base64. */
  @Column({ type: 'text' })
  secret!: string;

  /** The key before the last rotation: it keeps signing beside `secret` until it expires. */
  @Column({ name: 'previous_secret', type: 'text', nullable: true })
  previousSecret!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Why it is disabled, as a stable code (null while enabled). */
  @Column({ name: 'disabled_code', type: 'text', nullable: true })
  disabledCode!: WebhookDisabledCode | null;

  @Column({ name: 'disabled_reason', type: 'text', nullable: true })
  disabledReason!: string | null;

  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  /** First failed attempt since the last success; null while deliveries succeed. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince!: Date | null;

  /**
   * The openId of the account that answers for it: its creator, or the owner who resumed it
   * after its creator's account was deleted. Its deletion disables the subscription.
   */
  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  /**
   * Stamped by the service on creation, by the clock that stamps events' `occurredAt`:
   * the subscription receives the events at or after it.
   */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
