import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * An account of a tenant as records-service knows it: a projection of user-service's
 * account events (docs/records-api.md, Collaborators), read to resolve a username or
 * openId without calling user-service.
 */
@Entity('account_directory')
export class AccountDirectoryEntity {
  @PrimaryColumn({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @PrimaryColumn({ name: 'open_id', type: 'text' })
  openId!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @Column({ type: 'text' })
  username!: string;

  @Column({ name: 'first_name', type: 'text', nullable: true })
  firstName!: string | null;

  @Column({ name: 'last_name', type: 'text', nullable: true })
  lastName!: string | null;

  @Column({ type: 'boolean' })
  active!: boolean;

  /** The account's version in user-service: older events never overwrite newer ones. */
  @Column({
    type: 'bigint',
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  version!: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
