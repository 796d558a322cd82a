import { Column, Entity, PrimaryColumn } from 'typeorm';

const bigintAsNumber = { to: (v: number) => v, from: (v: string) => Number(v) };

/**
 * A stored object of one vault, known by the SHA-256 of its bytes (unique per vault);
 * `refCount` counts the file versions pointing at it, kept by a trigger of
 * file_versions. The row goes with its last reference and a trigger queues the bytes
 * for removal (migration 1764000000000-file-versions).
 */
@Entity('blobs')
export class BlobEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'vault_id', type: 'uuid' })
  vaultId!: string;

  /** Lower-case hex SHA-256 of the bytes. */
  @Column({ type: 'text' })
  sha256!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  size!: number;

  @Column({ name: 'storage_key', type: 'text' })
  storageKey!: string;

  /** Age header and payload nonce of an encrypted object (null: stored before encryption, plaintext). */
  @Column({ type: 'bytea', nullable: true })
  envelope!: Buffer | null;

  /** The vault whose key the envelope is sealed to (differs from vaultId after a record moved, until rewrapped). */
  @Column({ name: 'envelope_vault_id', type: 'uuid', nullable: true })
  envelopeVaultId!: string | null;

  @Column({ name: 'ref_count', type: 'integer', default: 0, insert: false, update: false })
  refCount!: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
