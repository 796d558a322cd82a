import { Injectable } from '@nestjs/common';
import { Transactions, Tx } from '@vault/platform/persistence';

/** How a stored object is read: plaintext (no envelope), or sealed to a vault's key. */
export interface BlobSeal {
  id: string;
  vaultId: string;
  /** Lower-case hex SHA-256 of the plaintext. */
  sha256: string;
  size: number;
  storageKey: string;
  envelope: Buffer | null;
  envelopeVaultId: string | null;
}

const COLUMNS = `id, vault_id AS "vaultId", sha256, size::float8 AS size, storage_key AS "storageKey",
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
   * Points a still-plaintext blob at its encrypted copy under `storageKey` (whose queued
   * removal is taken off), copies of the key on file rows follow, and the plaintext object
   * is queued for removal after `graceSeconds` (downloads under way finish). False when
   * the blob went or changed meanwhile (the copy stays queued); throws, changing nothing,
   * when the copy's queued removal already ran.
   */
  async sealed(tx: Tx, blob: BlobSeal, sealed: { storageKey: string; envelope: Buffer }, graceSeconds: number): Promise<boolean> {
    const [, updated]: [unknown, number] = await tx.query(
      `UPDATE blobs SET storage_key = $3, envelope = $4, envelope_vault_id = vault_id
       WHERE id = $1 AND storage_key = $2 AND envelope IS NULL`,
      [blob.id, blob.storageKey, sealed.storageKey, sealed.envelope],
    );
    if (updated !== 1) return false;
    const [, dequeued]: [unknown, number] = await tx.query(`DELETE FROM file_purges WHERE storage_key = $1`, [sealed.storageKey]);
    // the copy's queued removal already ran: roll the change back (the next pass makes a new copy)
    if (dequeued !== 1) throw new Error(`the encrypted copy ${sealed.storageKey} was removed before its commit`);
    await tx.query(`UPDATE record_files SET storage_key = $2 WHERE storage_key = $1`, [blob.storageKey, sealed.storageKey]);
    await tx.query(
      `INSERT INTO file_purges (storage_key, purge_after) VALUES ($1, now() + make_interval(secs => $2))
       ON CONFLICT (storage_key) DO UPDATE SET purge_after = EXCLUDED.purge_after`,
      [blob.storageKey, graceSeconds],
    );
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

  /** Whether some version of a file of the record is an encrypted blob (its move needs vault keys). */
  async recordHasSealed(recordId: string, tx: Tx = this.tx.none): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      `SELECT 1 FROM record_files f JOIN file_versions v ON v.file_id = f.id JOIN blobs b ON b.id = v.blob_id
       WHERE f.record_id = $1 AND b.envelope IS NOT NULL LIMIT 1`,
      [recordId],
    );
    return rows.length > 0;
  }

  /**
   * Blobs of `toVaultId` whose envelopes are still sealed to `fromVaultId` (the blobs a
   * record just moved took along), locked for their rewrap in the same transaction.
   */
  lockMoved(tx: Tx, fromVaultId: string, toVaultId: string): Promise<BlobSeal[]> {
    return tx.query(`SELECT ${COLUMNS} FROM blobs WHERE vault_id = $2 AND envelope_vault_id = $1 ORDER BY id FOR UPDATE`, [
      fromVaultId,
      toVaultId,
    ]);
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
