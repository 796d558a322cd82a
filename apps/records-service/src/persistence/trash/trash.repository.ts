import { Injectable } from '@nestjs/common';
import type { RecordRole, RecordStatus, TrashItemKind, VaultRole } from '@vault/contracts';
import { Transactions, Tx } from '@vault/platform/persistence';
import { RecordFileEntity } from '../record-files/record-file.entity';
import { RecordEntity } from '../records/record.entity';
import { VaultEntity } from '../vaults/vault.entity';

/** A vault, record or file found by id for a trash action, with the caller's roles and its parents' state. */
export interface TrashTarget {
  kind: TrashItemKind;
  id: string;
  tenantId: string;
  vaultId: string;
  vaultName: string;
  recordId: string | null;
  recordName: string | null;
  /** The vault's name, the record's name or the file name. */
  name: string;
  deletedAt: Date | null;
  purgeAt: Date | null;
  vaultDeletedAt: Date | null;
  recordDeletedAt: Date | null;
  vaultRole: VaultRole | null;
  recordRole: RecordRole | null;
}

/** The rows of an item: its vault, and its record and file when it is one of those. */
export interface ItemRows {
  vault: VaultEntity;
  record?: RecordEntity;
  file?: RecordFileEntity;
}

/** One row of a trash listing. */
export interface TrashRow {
  kind: TrashItemKind;
  id: string;
  name: string;
  recordId: string | null;
  vaultId: string;
  deletedAt: Date;
  deletedBy: string;
  purgeAt: Date;
  bytes: string;
  /** deleted_at with microseconds, for the cursor. */
  key: string;
}

/** Where a listing page starts (after this deletion time and id, newest first). */
export interface TrashKey {
  at: string;
  id: string;
}

const TABLE: Record<TrashItemKind, string> = { vault: 'vaults', record: 'records', file: 'record_files' };

/** The columns of a listing row and the keyset condition on the subquery `t`. */
const ROW = `kind, id, name, "recordId", "vaultId", "deletedAt", "deletedBy", "purgeAt", bytes,
  to_char("deletedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS key`;
const PAGE = (n: number) =>
  `WHERE ($${n}::timestamptz IS NULL OR ("deletedAt", id) < ($${n}::timestamptz, $${n + 1}::uuid))
   ORDER BY "deletedAt" DESC, id DESC LIMIT $${n + 2}`;

/** SQL of the bytes a record holds (every file of it, trashed ones included). */
const RECORD_BYTES = `(SELECT coalesce(sum(f.size), 0) FROM record_files f WHERE f.record_id = r.id)`;

/**
 * Queries and locks of the trash (docs/records-api.md, Trash): an item is trashed while its
 * `deleted_at` is set; a live row has `deleted_at IS NULL`. Trashing a vault or a record
 * leaves its children's columns alone, so a restore brings them back as they were.
 */
@Injectable()
export class TrashRepository {
  constructor(private readonly tx: Transactions) {}

  /** The vault, record or file of the tenant with this id (trashed or not) and the account's roles on it. */
  async find(tenantId: string, openId: string, id: string, tx: Tx = this.tx.none): Promise<TrashTarget | null> {
    const rows: TrashTarget[] = await tx.query(
      `WITH item AS (
         SELECT 'vault' AS kind, v.id, v.id AS vault_id, NULL::uuid AS record_id, v.name, v.deleted_at, v.purge_at
           FROM vaults v WHERE v.id = $1 AND v.tenant_id = $2
         UNION ALL
         SELECT 'record', r.id, r.vault_id, r.id, r.name, r.deleted_at, r.purge_at
           FROM records r WHERE r.id = $1 AND r.tenant_id = $2
         UNION ALL
         SELECT 'file', f.id, r.vault_id, f.record_id, f.file_name, f.deleted_at, f.purge_at
           FROM record_files f JOIN records r ON r.id = f.record_id WHERE f.id = $1 AND f.tenant_id = $2)
       SELECT i.kind, i.id, v.tenant_id AS "tenantId", i.vault_id AS "vaultId", v.name AS "vaultName",
              i.record_id AS "recordId", r.name AS "recordName", i.name, i.deleted_at AS "deletedAt",
              i.purge_at AS "purgeAt", v.deleted_at AS "vaultDeletedAt", r.deleted_at AS "recordDeletedAt",
              vm.role AS "vaultRole", rm.role AS "recordRole"
         FROM item i
         JOIN vaults v ON v.id = i.vault_id
         LEFT JOIN records r ON r.id = i.record_id
         LEFT JOIN vault_memberships vm ON vm.vault_id = v.id AND vm.open_id = $3
         LEFT JOIN record_memberships rm ON rm.record_id = i.record_id AND rm.open_id = $3
        LIMIT 1`,
      [id, tenantId, openId],
    );
    return rows[0] ?? null;
  }

  /** Trashed records of the vault and trashed files of its live records, newest deletion first. */
  vaultTrash(vaultId: string, after: TrashKey | null, limit: number): Promise<TrashRow[]> {
    return this.tx.none.query(
      `SELECT ${ROW} FROM (
         SELECT 'record' AS kind, r.id, r.name, r.id AS "recordId", r.vault_id AS "vaultId", r.deleted_at AS "deletedAt",
                r.deleted_by AS "deletedBy", r.purge_at AS "purgeAt", ${RECORD_BYTES} AS bytes
           FROM records r WHERE r.vault_id = $1 AND r.deleted_at IS NOT NULL
         UNION ALL
         SELECT 'file', f.id, f.file_name, f.record_id, r.vault_id, f.deleted_at, f.deleted_by, f.purge_at, f.size
           FROM record_files f JOIN records r ON r.id = f.record_id AND r.deleted_at IS NULL
          WHERE r.vault_id = $1 AND f.deleted_at IS NOT NULL) t
       ${PAGE(2)}`,
      [vaultId, after?.at ?? null, after?.id ?? null, limit],
    );
  }

  /** The account's trashed vaults (those it owns), newest deletion first. */
  ownedVaultTrash(tenantId: string, openId: string, after: TrashKey | null, limit: number): Promise<TrashRow[]> {
    return this.tx.none.query(
      `SELECT ${ROW} FROM (
         SELECT 'vault' AS kind, v.id, v.name, NULL::uuid AS "recordId", v.id AS "vaultId", v.deleted_at AS "deletedAt",
                v.deleted_by AS "deletedBy", v.purge_at AS "purgeAt",
                (SELECT coalesce(sum(f.size), 0) FROM record_files f JOIN records r ON r.id = f.record_id
                  WHERE r.vault_id = v.id) AS bytes
           FROM vaults v JOIN vault_memberships m ON m.vault_id = v.id AND m.open_id = $2 AND m.role = 'vault_owner'
          WHERE v.tenant_id = $1 AND v.deleted_at IS NOT NULL) t
       ${PAGE(3)}`,
      [tenantId, openId, after?.at ?? null, after?.id ?? null, limit],
    );
  }

  /** The rows of the item (trashed or not), read in the transaction; null when it is gone. */
  async rowsOf(tx: Tx, kind: TrashItemKind, id: string): Promise<ItemRows | null> {
    const file = kind === 'file' ? await tx.findOne(RecordFileEntity, { where: { id } }) : undefined;
    if (file === null) return null;
    const recordId = file?.recordId ?? (kind === 'record' ? id : undefined);
    const record = recordId ? await tx.findOne(RecordEntity, { where: { id: recordId } }) : undefined;
    if (record === null) return null;
    const vault = await tx.findOne(VaultEntity, { where: { id: record?.vaultId ?? id } });
    return vault ? { vault, record, file } : null;
  }

  /** Moves the live vault to the trash. */
  async trashVault(tx: Tx, id: string, by: string, at: Date, purgeAt: Date): Promise<void> {
    await tx.query(`UPDATE vaults SET deleted_at = $3, deleted_by = $2, purge_at = $4 WHERE id = $1 AND deleted_at IS NULL`, [
      id,
      by,
      at,
      purgeAt,
    ]);
  }

  /** Moves the live record to the trash: status DELETED (its status kept to restore), inactive, a new version. */
  async trashRecord(tx: Tx, id: string, by: string, at: Date, purgeAt: Date): Promise<void> {
    await tx.query(
      `UPDATE records SET status_before_delete = status, status = 'DELETED', active = false, deleted_at = $3,
              deleted_by = $2, purge_at = $4, last_modified_by = $2, version = version + 1, updated_at = now()
        WHERE id = $1 AND deleted_at IS NULL`,
      [id, by, at, purgeAt],
    );
  }

  /** Moves the live file to the trash (its name is free for a new upload from now on). */
  async trashFile(tx: Tx, id: string, by: string, at: Date, purgeAt: Date): Promise<void> {
    await tx.query(
      `UPDATE record_files SET deleted_at = $3, deleted_by = $2, purge_at = $4 WHERE id = $1 AND deleted_at IS NULL`,
      [id, by, at, purgeAt],
    );
  }

  /** Locks the trashed item's row (waiting for others); null when it is not (or no longer) in the trash. */
  async lockTrashed(tx: Tx, kind: TrashItemKind, id: string): Promise<{ id: string; purgeAt: Date } | null> {
    const rows: { id: string; purgeAt: Date }[] = await tx.query(
      `SELECT id, purge_at AS "purgeAt" FROM ${TABLE[kind]} WHERE id = $1 AND deleted_at IS NOT NULL FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** Brings the vault back (without its inbox name when `dropInbox`). */
  async restoreVault(tx: Tx, id: string, dropInbox = false): Promise<void> {
    await tx.query(
      `UPDATE vaults SET deleted_at = NULL, deleted_by = NULL, purge_at = NULL,
              email_username = CASE WHEN $2 THEN NULL ELSE email_username END
        WHERE id = $1`,
      [id, dropInbox],
    );
  }

  /** Brings the record back with the status it had (a new version; the live-record counter follows by trigger). */
  async restoreRecord(tx: Tx, id: string, by: string): Promise<RecordStatus> {
    const [rows]: [{ status: RecordStatus }[], number] = await tx.query(
      `UPDATE records SET status = coalesce(status_before_delete, 'ACTIVE'), status_before_delete = NULL, active = true,
              deleted_at = NULL, deleted_by = NULL, purge_at = NULL, last_modified_by = $2, version = version + 1
        WHERE id = $1 RETURNING status`,
      [id, by],
    );
    return rows[0].status;
  }

  /** Brings the file back under `name`. */
  async restoreFile(tx: Tx, id: string, name: string): Promise<void> {
    await tx.query(
      `UPDATE record_files SET deleted_at = NULL, deleted_by = NULL, purge_at = NULL, file_name = $2 WHERE id = $1`,
      [id, name],
    );
  }

  /** The names of the record's live files starting with `prefix` (to find a free one). */
  async liveNamesLike(tx: Tx, recordId: string, prefix: string): Promise<Set<string>> {
    const rows: { name: string }[] = await tx.query(
      `SELECT file_name AS name FROM record_files WHERE record_id = $1 AND deleted_at IS NULL AND starts_with(file_name, $2)`,
      [recordId, prefix],
    );
    return new Set(rows.map((r) => r.name));
  }

  /**
   * Deletes the item's row for good: a vault's records, files, memberships, licences and
   * released holds go with it (foreign keys) and its webhook subscriptions are deleted; a
   * record's files and memberships go with it; stored bytes follow through the purge queue.
   */
  async purge(tx: Tx, kind: TrashItemKind, id: string): Promise<void> {
    // webhook subscriptions name their vault without a foreign key (their deliveries go with them)
    if (kind === 'vault') await tx.query(`DELETE FROM webhooks WHERE vault_id = $1`, [id]);
    await tx.query(`DELETE FROM ${TABLE[kind]} WHERE id = $1`, [id]);
  }

  /** Locks up to `limit` trashed items of the kind whose purge is due, skipping those another instance holds. */
  async lockDue(tx: Tx, kind: TrashItemKind, now: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await tx.query(
      `SELECT id FROM ${TABLE[kind]} WHERE deleted_at IS NOT NULL AND purge_at <= $1
        ORDER BY purge_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Locks up to `limit` trashed file versions (thinned by the version limit) whose purge is
   * due, skipping those another instance holds, with what a hold or retention check needs.
   */
  lockDueVersions(
    tx: Tx,
    now: Date,
    limit: number,
  ): Promise<{ id: string; fileId: string; recordId: string; vaultId: string }[]> {
    return tx.query(
      `SELECT v.id, v.file_id AS "fileId", f.record_id AS "recordId", r.vault_id AS "vaultId"
         FROM file_versions v JOIN record_files f ON f.id = v.file_id JOIN records r ON r.id = f.record_id
        WHERE v.deleted_at IS NOT NULL AND v.purge_at <= $1
        ORDER BY v.purge_at LIMIT $2 FOR UPDATE OF v SKIP LOCKED`,
      [now, limit],
    );
  }

  /** Deletes a trashed version (its blob reference goes with it, by trigger), or moves its purge to `at`. */
  async purgeVersion(tx: Tx, id: string, postponeTo?: Date): Promise<void> {
    if (postponeTo) await tx.query(`UPDATE file_versions SET purge_at = $2 WHERE id = $1`, [id, postponeTo]);
    else await tx.query(`DELETE FROM file_versions WHERE id = $1 AND deleted_at IS NOT NULL`, [id]);
  }

  /** Moves the item's purge to `at` (a hold or the retention period keeps it until then). */
  async postpone(tx: Tx, kind: TrashItemKind, id: string, at: Date): Promise<void> {
    await tx.query(`UPDATE ${TABLE[kind]} SET purge_at = $2 WHERE id = $1`, [id, at]);
  }
}
