import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An identity whose account was deleted in the user module (account.deleted.v1): it
 * gets no token of this tenant any more. The row is kept for good, as the user module
 * keeps the identity bound to its deleted account.
 */
@Entity({ name: 'closed_identities' })
export class ClosedIdentityEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'varchar', length: 128 })
  tenantId!: string;

  /** The token subject, `<provider>|<id>`. */
  @PrimaryColumn({ name: 'open_id', type: 'varchar', length: 300 })
  openId!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  /** When the account was deleted (the event's occurredAt). */
  @Column({ name: 'closed_at', type: 'timestamptz' })
  closedAt!: Date;
}
