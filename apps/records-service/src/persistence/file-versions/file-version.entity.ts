import { Column, Entity, PrimaryColumn } from 'typeorm';
import { Trashable } from '../lifecycle/trashable.entity';

/**
 * One version of a record file: the blob holding its bytes, its number (1.. per file)
 * and whether it is the file's current one (exactly one per file) or pinned (never
 * thinned). A version thinned out by `vault.fileVersions` is in the trash:
 * `deletedAt` set, purged (the row deleted) at `purgeAt`.
 */
@Entity('file_versions')
export class FileVersionEntity extends Trashable {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'file_id', type: 'uuid' })
  fileId!: string;

  @Column({ name: 'blob_id', type: 'uuid' })
  blobId!: string;

  @Column({ type: 'integer' })
  number!: number;

  /** Media type declared by the client that uploaded this version. */
  @Column({ name: 'media_type', type: 'text' })
  mediaType!: string;

  @Column({ type: 'boolean', default: false })
  current!: boolean;

  @Column({ type: 'boolean', default: false })
  pinned!: boolean;

  /** The version a restore made this one from. */
  @Column({ name: 'restored_from', type: 'uuid', nullable: true })
  restoredFrom!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  /** Open id of who uploaded or restored it. */
  @Column({ name: 'created_by', type: 'text' })
  createdBy!: string;

  @Column({ name: 'created_by_name', type: 'text' })
  createdByName!: string;
}

/** A version with the size and digest of its blob. */
export interface VersionWithBlob {
  version: FileVersionEntity;
  size: number;
  sha256: string;
  storageKey: string;
}
