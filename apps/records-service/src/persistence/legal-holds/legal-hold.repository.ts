import { Injectable } from '@nestjs/common';
import { Transactions, Tx } from '@vault/platform/persistence';

/** A legal hold row. */
export interface HoldRow {
  id: string;
  tenantId: string;
  vaultId: string;
  recordId: string | null;
  fileId: string | null;
  name: string;
  reason: string | null;
  placedBy: string;
  placedAt: Date;
  releasedBy: string | null;
  releasedAt: Date | null;
}

/** What a purge would remove: a vault (with everything in it), a record (with its files) or a file. */
export interface PurgeScope {
  vaultId: string;
  recordId?: string | null;
  fileId?: string | null;
}

const COLUMNS = `h.id, h.tenant_id AS "tenantId", h.vault_id AS "vaultId", h.record_id AS "recordId", h.file_id AS "fileId",
  h.name, h.reason, h.placed_by AS "placedBy", h.placed_at AS "placedAt", h.released_by AS "releasedBy",
  h.released_at AS "releasedAt"`;

/**
 * SQL of the active holds covering a purge of the scope ($1 vault, $2 record, $3 file): a
 * hold on the vault covers all in it, a hold on a record its files, a hold on a file itself;
 * a vault purge is covered by any hold on its records or files too.
 */
const COVERING = `h.released_at IS NULL AND (
    ($2::uuid IS NULL AND (h.vault_id = $1 OR h.record_id IN (SELECT id FROM records WHERE vault_id = $1)))
    OR ($2::uuid IS NOT NULL AND $3::uuid IS NULL AND ((h.vault_id = $1 AND h.record_id IS NULL) OR h.record_id = $2))
    OR ($3::uuid IS NOT NULL AND ((h.vault_id = $1 AND h.record_id IS NULL)
        OR (h.record_id = $2 AND (h.file_id IS NULL OR h.file_id = $3)))))`;

/** Legal holds: named cases that keep a vault, a record or a file from purge until released. */
@Injectable()
export class LegalHoldRepository {
  constructor(private readonly tx: Transactions) {}

  async insert(tx: Tx, hold: Omit<HoldRow, 'id' | 'placedAt' | 'releasedBy' | 'releasedAt'>): Promise<HoldRow> {
    const rows: HoldRow[] = await tx.query(
      `INSERT INTO legal_holds AS h (tenant_id, vault_id, record_id, file_id, name, reason, placed_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [hold.tenantId, hold.vaultId, hold.recordId, hold.fileId, hold.name, hold.reason, hold.placedBy],
    );
    return rows[0];
  }

  /** The tenant's holds, newest first: active ones only unless `released`; of one vault when given. */
  list(tenantId: string, vaultId: string | undefined, released: boolean): Promise<HoldRow[]> {
    return this.tx.none.query(
      `SELECT ${COLUMNS} FROM legal_holds h
        WHERE h.tenant_id = $1 AND ($2::uuid IS NULL OR h.vault_id = $2) AND ($3 OR h.released_at IS NULL)
        ORDER BY h.placed_at DESC, h.id DESC LIMIT 1000`,
      [tenantId, vaultId ?? null, released],
    );
  }

  /** The tenant's hold with this id, locked for a release. */
  async lock(tx: Tx, tenantId: string, id: string): Promise<HoldRow | null> {
    const rows: HoldRow[] = await tx.query(
      `SELECT ${COLUMNS} FROM legal_holds h WHERE h.id = $1 AND h.tenant_id = $2 FOR UPDATE`,
      [id, tenantId],
    );
    return rows[0] ?? null;
  }

  async release(tx: Tx, id: string, by: string): Promise<HoldRow> {
    // PostgreSQL UPDATE answers [rows, count] through TypeORM
    const [rows]: [HoldRow[], number] = await tx.query(
      `UPDATE legal_holds h SET released_by = $2, released_at = now() WHERE h.id = $1 RETURNING ${COLUMNS}`,
      [id, by],
    );
    return rows[0];
  }

  /** The active holds that keep the scope from purge, oldest first. */
  covering(scope: PurgeScope, tx: Tx = this.tx.none): Promise<HoldRow[]> {
    return tx.query(`SELECT ${COLUMNS} FROM legal_holds h WHERE ${COVERING} ORDER BY h.placed_at, h.id`, [
      scope.vaultId,
      scope.recordId ?? null,
      scope.fileId ?? null,
    ]);
  }

  /**
   * The latest creation time among what a purge of the scope removes (the vault's records
   * and files, a record and its files, or a file): the retention period runs from it.
   */
  async newestCreation(scope: PurgeScope, tx: Tx = this.tx.none): Promise<Date | null> {
    const rows: { at: Date | null }[] = await tx.query(
      `SELECT CASE
         WHEN $3::uuid IS NOT NULL THEN (SELECT created_at FROM record_files WHERE id = $3)
         WHEN $2::uuid IS NOT NULL THEN greatest((SELECT created_at FROM records WHERE id = $2),
                                                 (SELECT max(created_at) FROM record_files WHERE record_id = $2))
         ELSE greatest((SELECT max(created_at) FROM records WHERE vault_id = $1),
                       (SELECT max(f.created_at) FROM record_files f JOIN records r ON r.id = f.record_id
                         WHERE r.vault_id = $1))
       END AS at`,
      [scope.vaultId, scope.recordId ?? null, scope.fileId ?? null],
    );
    return rows[0]?.at ?? null;
  }

  /** Whether the record (and the file, when given) belongs to the vault of the tenant. */
  async targetExists(tenantId: string, scope: PurgeScope): Promise<boolean> {
    const rows: unknown[] = await this.tx.none.query(
      `SELECT 1 FROM vaults v
        WHERE v.id = $1 AND v.tenant_id = $4
          AND ($2::uuid IS NULL OR EXISTS (SELECT 1 FROM records r WHERE r.id = $2 AND r.vault_id = v.id))
          AND ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM record_files f WHERE f.id = $3 AND f.record_id = $2))`,
      [scope.vaultId, scope.recordId ?? null, scope.fileId ?? null, tenantId],
    );
    return rows.length > 0;
  }
}
