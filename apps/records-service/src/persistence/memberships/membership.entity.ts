import type { RecordRole, VaultRole } from '@vault/contracts';
import { Column, CreateDateColumn, Entity, Generated, PrimaryColumn } from 'typeorm';

/** A caller's role on a vault (see docs/records-api.md, Roles). */
@Entity('vault_memberships')
export class VaultMembershipEntity {
  @PrimaryColumn({ name: 'vault_id', type: 'uuid' })
  vaultId!: string;

  @PrimaryColumn({ name: 'open_id', type: 'text' })
  openId!: string;

  /** The collaborator id of the API. */
  @Column({ type: 'uuid', unique: true })
  @Generated('uuid')
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  role!: VaultRole;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

/** A caller's role on one record. */
@Entity('record_memberships')
export class RecordMembershipEntity {
  @PrimaryColumn({ name: 'record_id', type: 'uuid' })
  recordId!: string;

  @PrimaryColumn({ name: 'open_id', type: 'text' })
  openId!: string;

  /** The collaborator id of the API. */
  @Column({ type: 'uuid', unique: true })
  @Generated('uuid')
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  role!: RecordRole;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
