import type { UploadFileMetadataDto } from '@vault/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

const bigintAsNumber = {
  to: (v: number) => v,
  from: (v: string | null) => (v === null ? null : Number(v)),
};

/** What a storage adapter keeps about an append-only upload in progress (adapter-specific). */
export type AppendState = Record<string, unknown>;

/**
 * An open resumable (tus) upload: its bytes so far are in FileStorage under
 * `storageKey` (queued in file_purges until the record file commits), its declared
 * length is reserved in the vault's storage use.
 */
@Entity('resumable_uploads')
export class ResumableUploadEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'record_id', type: 'uuid' })
  recordId!: string;

  @Column({ name: 'tenant_id', type: 'text' })
  tenantId!: string;

  /** Only this caller may continue, inspect or terminate the upload. */
  @Column({ name: 'owner_open_id', type: 'text' })
  ownerOpenId!: string;

  @Column({ name: 'storage_key', type: 'text' })
  storageKey!: string;

  @Column({
    name: 'upload_length',
    type: 'bigint',
    transformer: bigintAsNumber,
  })
  length!: number;

  @Column({
    name: 'upload_offset',
    type: 'bigint',
    transformer: bigintAsNumber,
  })
  offset!: number;

  @Column({ type: 'jsonb' })
  metadata!: UploadFileMetadataDto;

  @Column({ name: 'media_type', type: 'text' })
  mediaType!: string;

  /** The whole-file SHA-256 the client announced (lower-case hex), if any. */
  @Column({ name: 'expected_sha256', type: 'text', nullable: true })
  expectedSha256!: string | null;

  @Column({ name: 'store_state', type: 'jsonb' })
  storeState!: AppendState;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
