import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn, VersionColumn } from 'typeorm';
import { Trashable } from '../lifecycle/trashable.entity';

@Entity('vaults')
export class VaultEntity extends Trashable {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ type: 'text' })
  name!: string;

  /** Stored lower-case; unique across all vaults (case-insensitive index). */
  @Column({ name: 'email_username', type: 'text', nullable: true })
  emailUsername!: string | null;

  @Column({ name: 'profile_photo', type: 'text', nullable: true })
  profilePhoto!: string | null;

  @Column({ name: 'first_name', type: 'text', nullable: true })
  firstName!: string | null;

  @Column({ name: 'last_name', type: 'text', nullable: true })
  lastName!: string | null;

  @Column({ type: 'text' })
  type!: string;

  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault!: boolean;

  @Column({ type: 'boolean', default: true })
  editable!: boolean;

  @Column({ name: 'brand_code', type: 'text', nullable: true })
  brandCode!: string | null;

  @Column({ type: 'text', default: 'ACTIVE' })
  status!: string;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  /** Records of the vault that count against its quota (every status but DELETED); kept by a trigger. */
  @Column({ name: 'live_records', type: 'integer', insert: false, update: false, default: 0 })
  liveRecords!: number;

  /**
   * Set when the owner deleted its account and nobody else holds a role on the vault: the
   * vault is removed after this time (VaultDeletionPurger). Null for every other vault.
   */
  @Column({ name: 'deletion_due_at', type: 'timestamptz', nullable: true, select: false, insert: false, update: false })
  deletionDueAt!: Date | null;

  /** 1 at insert, +1 by every save or update of the row: the ETag's version. */
  @VersionColumn({ type: 'integer' })
  version!: number;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
