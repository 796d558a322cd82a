import type { FileType } from '@vault/contracts';
import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { Trashable } from '../lifecycle/trashable.entity';

const bigintAsNumber = { to: (v: number) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

/** Metadata of a stored file; the bytes live in FileStorage under `storageKey`. */
@Entity('record_files')
export class RecordFileEntity extends Trashable {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'record_id', type: 'uuid' })
  recordId!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  @Column({ name: 'file_name', type: 'text' })
  fileName!: string;

  @Column({ name: 'correlation_id', type: 'text' })
  correlationId!: string;

  @Column({ name: 'file_type', type: 'text' })
  fileType!: FileType;

  @Column({ name: 'upload_detail', type: 'text', nullable: true })
  uploadDetail!: string | null;

  @Column({ type: 'text', nullable: true })
  caption!: string | null;

  @Column({ name: 'upload_title', type: 'text', nullable: true })
  uploadTitle!: string | null;

  @Column({ name: 'file_extension', type: 'text', nullable: true })
  fileExtension!: string | null;

  /** Media type declared by the uploading client (sanitised), served on download. */
  @Column({ name: 'media_type', type: 'text' })
  mediaType!: string;

  @Column({ name: 'storage_key', type: 'text' })
  storageKey!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  size!: number;

  /** Lower-case hex SHA-256 of the bytes. */
  @Column({ type: 'text' })
  sha256!: string;

  @Column({ type: 'text' })
  uploader!: string;

  @Column({ name: 'uploader_open_id', type: 'text' })
  uploaderOpenId!: string;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @Column({ type: 'integer', default: 0 })
  revision!: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}

/**
 * Stored bytes waiting for removal: queued by the delete trigger of record_files
 * (due at once) and by every upload before its bytes are written (due after the
 * upload grace period, cancelled when the metadata row commits).
 */
@Entity('file_purges')
export class FilePurgeEntity {
  @PrimaryColumn({ name: 'storage_key', type: 'text' })
  storageKey!: string;

  @Column({ name: 'purge_after', type: 'timestamptz' })
  purgeAfter!: Date;
}
