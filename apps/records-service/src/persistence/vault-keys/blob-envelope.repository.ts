import { Injectable } from '@nestjs/common';
import { Transactions, Tx } from '@vault/platform/persistence';

/** How a stored object is read: plaintext (no envelope), or sealed to a vault's key. */
export interface BlobSeal {
  id: string;
  vaultId: string;
  size: number;
  storageKey: string;
  envelope: Buffer | null;
  envelopeVaultId: string | null;
}

const COLUMNS = `id, vault_id AS "vaultId", size::float8 AS size, storage_key AS "storageKey",
  envelope, envelope_vault_id AS "envelopeVaultId"`;

/** The encryption side of blobs: their envelopes, the plaintext ones left, the ones sealed to another vault. */
@Injectable()
export class BlobEnvelopeRepository {
  constructor(private readonly tx: Transactions) {}

  async byStorageKey(storageKey: string, tx: Tx = this.tx.none): Promise<BlobSeal | null> {
    const rows: BlobSeal[] = await tx.query(`SELECT ${COLUMNS} FROM blobs WHERE storage_key = $1`, [storageKey]);
    return rows[0] ?? null;
  }

  /** Plaintext blobs after `after` in id order (the encryption job's next ones). */
  plaintext(after: string | null, limit: number, tx: Tx = this.tx.none): Promise<BlobSeal[]> {
    return tx.query(
      `SELECT ${COLUMNS} FROM blobs WHERE envelope IS NULL AND ($1::uuid IS NULL OR id > $1::uuid)
       ORDER BY id LIMIT $2`,
      [after, limit],
    );
  }

  /**
   * Points a still-plaintext blob at its encrypted copy; false when the blob went or
   * changed meanwhile. Copies of the key on file rows follow.
   */
  async sealed(tx: Tx, blob: BlobSeal, storageKey: string, envelope: Buffer): Promise<boolean> {
    const [, affected]: [unknown, number] = await tx.query(
      `UPDATE blobs SET storage_key = $3, envelope = $4, envelope_vault_id = vault_id
       WHERE id = $1 AND storage_key = $2 AND envelope IS NULL`,
      [blob.id, blob.storageKey, storageKey, envelope],
    );
    if (affected !== 1) return false;
    await tx.query(`UPDATE record_files SET storage_key = $2 WHERE storage_key = $1`, [blob.storageKey, storageKey]);
    return true;
  }

  /** Blobs whose envelope is sealed to another vault than theirs (moved records), locked; those of `vaultId` only when given. */
  lockForeign(tx: Tx, limit: number, sealedTo?: string): Promise<BlobSeal[]> {
    return tx.query(
      `SELECT ${COLUMNS} FROM blobs WHERE envelope_vault_id <> vault_id
         AND ($2::uuid IS NULL OR envelope_vault_id = $2::uuid)
       ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit, sealedTo ?? null],
    );
  }

  async rewrapped(tx: Tx, blobId: string, envelope: Buffer, vaultId: string): Promise<void> {
    await tx.query(`UPDATE blobs SET envelope = $2, envelope_vault_id = $3 WHERE id = $1`, [blobId, envelope, vaultId]);
  }

  /** Plaintext blobs and all blobs (the encryption job's progress). */
  async counts(tx: Tx = this.tx.none): Promise<{ plaintext: number; total: number }> {
    const [row]: { plaintext: number; total: number }[] = await tx.query(
      `SELECT count(*) FILTER (WHERE envelope IS NULL)::int AS plaintext, count(*)::int AS total FROM blobs`,
    );
    return row;
  }
}
