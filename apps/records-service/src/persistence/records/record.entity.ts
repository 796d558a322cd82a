import type { RecordStatus } from '@vault/contracts';
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn, VersionColumn } from 'typeorm';
import { Trashable } from '../lifecycle/trashable.entity';

@Entity('records')
export class RecordEntity extends Trashable {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'vault_id', type: 'uuid' })
  vaultId!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  description!: string;

  @Column({ name: 'unique_reference', type: 'text', nullable: true })
  uniqueReference!: string | null;

  @Column({ name: 'storage_location', type: 'text', nullable: true })
  storageLocation!: string | null;

  @Column({ name: 'record_type_id', type: 'uuid' })
  recordTypeId!: string;

  @Column({ name: 'record_subtype_id', type: 'uuid' })
  recordSubtypeId!: string;

  @Column({ name: 'record_subtype_other', type: 'text', nullable: true })
  recordSubtypeOther!: string | null;

  @Column({ type: 'boolean', nullable: true })
  editable!: boolean | null;

  @Column({ name: 'record_details', type: 'jsonb', default: () => "'{}'::jsonb" })
  recordDetails!: Record<string, unknown>;

  @Column({ type: 'text', default: 'ACTIVE' })
  status!: RecordStatus;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  /** The status a trashed record had before it was deleted, given back by a restore. */
  @Column({ name: 'status_before_delete', type: 'text', nullable: true })
  statusBeforeDelete!: RecordStatus | null;

  /** 1 at insert, +1 by every save or update of the row: the ETag's version. */
  @VersionColumn({ type: 'integer' })
  version!: number;

  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'last_modified_by', type: 'text' })
  lastModifiedBy!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
