import { Injectable } from '@nestjs/common';
import { RecordEntity } from '../records/record.entity';
import { ResumableUploadEntity } from '../resumable-uploads/resumable-upload.entity';
import { Transactions, Tx } from '@vault/platform/persistence';

/** Which rows a byte sum covers: a record's, or (joined through records) a vault's. */
interface ByteScope {
  join: boolean;
  where: string;
  id: string;
}

/** A version that neither it, its file, its record nor its vault is in the trash (aliases v, f, r, and vt). */
const LIVE_VERSION = `(v.deleted_at IS NULL AND f.deleted_at IS NULL AND r.deleted_at IS NULL AND vt.deleted_at IS NULL)`;

/** Bytes a vault stores, by what uses them (each blob counted once), and reserved by open uploads. */
export interface VaultStorageBreakdown {
  storedBytes: number;
  currentBytes: number;
  versionBytes: number;
  trashBytes: number;
  uploadingBytes: number;
}

/** What a vault uses of its plan: live records per type and bytes of files (the live-record total is on the vault row). */
@Injectable()
export class UsageRepository {
  constructor(private readonly tx: Transactions) {}

  /** Live records of a vault per record type id. */
  async liveRecordsByType(vaultId: string): Promise<Map<string, number>> {
    const rows: { typeId: string; count: string }[] = await this.tx.none
      .getRepository(RecordEntity)
      .createQueryBuilder('r')
      .select('r.record_type_id', 'typeId')
      .addSelect('count(*)', 'count')
      .where('r.vault_id = :vaultId', { vaultId })
      .andWhere(`r.status <> 'DELETED'`)
      .groupBy('r.record_type_id')
      .getRawMany();
    return new Map(rows.map((r) => [r.typeId, Number(r.count)]));
  }

  /**
   * Bytes the vault stores: every blob of the vault once, whatever references it
   * (current files, older versions, the trash), plus the declared length of every
   * resumable upload still open on its records (reserved until it commits, expires or ends).
   */
  async vaultBytes(vaultId: string, tx: Tx = this.tx.none): Promise<number> {
    const [row]: { total: string }[] = await tx.query(`SELECT COALESCE(SUM(size), 0) AS total FROM blobs WHERE vault_id = $1`, [
      vaultId,
    ]);
    const scope: ByteScope = { join: true, where: 'r.vault_id = :id', id: vaultId };
    return Number(row.total) + (await this.reserved(tx, scope));
  }

  /**
   * Bytes of the blobs the versions of one record's files use (each once), plus the
   * declared length of its open resumable uploads: a record that moves takes both with it.
   */
  async recordBytes(recordId: string, tx: Tx = this.tx.none): Promise<number> {
    const [row]: { total: string }[] = await tx.query(
      `SELECT COALESCE(SUM(b.size), 0) AS total FROM blobs b WHERE b.id IN (
         SELECT v.blob_id FROM file_versions v JOIN record_files f ON f.id = v.file_id WHERE f.record_id = $1)`,
      [recordId],
    );
    const scope: ByteScope = { join: false, where: 'f.record_id = :id', id: recordId };
    return Number(row.total) + (await this.reserved(tx, scope));
  }

  /**
   * What the vault's stored bytes are (VaultStorageBreakdown): each blob counted once, as
   * current when a current version of a live file uses it, else as a version when a live
   * version of a live file does, else as trash.
   */
  async vaultBreakdown(vaultId: string): Promise<VaultStorageBreakdown> {
    const [row]: Record<keyof VaultStorageBreakdown, string>[] = await this.tx.none.query(
      `SELECT COALESCE(SUM(b.size), 0) AS "storedBytes",
         COALESCE(SUM(b.size) FILTER (WHERE s.cur), 0) AS "currentBytes",
         COALESCE(SUM(b.size) FILTER (WHERE s.live AND NOT s.cur), 0) AS "versionBytes",
         COALESCE(SUM(b.size) FILTER (WHERE NOT s.live), 0) AS "trashBytes"
       FROM blobs b CROSS JOIN LATERAL (
         SELECT COALESCE(bool_or(${LIVE_VERSION} AND v.current), false) AS cur,
           COALESCE(bool_or(${LIVE_VERSION}), false) AS live
         FROM file_versions v JOIN record_files f ON f.id = v.file_id JOIN records r ON r.id = f.record_id
         JOIN vaults vt ON vt.id = r.vault_id
         WHERE v.blob_id = b.id) s
       WHERE b.vault_id = $1`,
      [vaultId],
    );
    const scope: ByteScope = { join: true, where: 'r.vault_id = :id', id: vaultId };
    return {
      storedBytes: Number(row.storedBytes),
      currentBytes: Number(row.currentBytes),
      versionBytes: Number(row.versionBytes),
      trashBytes: Number(row.trashBytes),
      uploadingBytes: await this.reserved(this.tx.none, scope),
    };
  }

  /** Declared lengths of the open resumable uploads (alias `f`) in `scope` (by record, or joined to the vault). */
  private async reserved(tx: Tx, { join, where, id }: ByteScope): Promise<number> {
    const qb = tx
      .getRepository(ResumableUploadEntity)
      .createQueryBuilder('f')
      .select('COALESCE(SUM(f.upload_length), 0)', 'total');
    if (join) qb.innerJoin(RecordEntity, 'r', 'r.id = f.record_id');
    qb.where(where, { id });
    // a complete upload is being committed: its commit counts its bytes itself
    qb.andWhere('f.upload_offset < f.upload_length');
    const raw = await qb.getRawOne<{ total: string }>();
    return Number(raw?.total ?? 0);
  }
}
