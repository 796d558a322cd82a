import { Injectable } from '@nestjs/common';
import { FileVersionEntity, VersionWithBlob } from './file-version.entity';
import { Transactions, Tx } from '@vault/platform/persistence';

interface JoinedRow {
  v_id: string;
  size: string;
  sha256: string;
  storage_key: string;
}

/** Queries and locks of file versions; their blobs' reference counts follow by trigger. */
@Injectable()
export class FileVersionRepository {
  constructor(private readonly tx: Transactions) {}

  /** The live versions of a file with their blobs, newest first. */
  async listLive(fileId: string, tx: Tx = this.tx.none): Promise<VersionWithBlob[]> {
    return this.joined(tx, 'v.file_id = :fileId AND v.deleted_at IS NULL', { fileId });
  }

  /** One live version of a file with its blob (null when unknown or trashed). */
  async findLive(fileId: string, versionId: string, tx: Tx = this.tx.none): Promise<VersionWithBlob | null> {
    const [found] = await this.joined(tx, 'v.file_id = :fileId AND v.id = :versionId AND v.deleted_at IS NULL', {
      fileId,
      versionId,
    });
    return found ?? null;
  }

  /** The highest version number of a file (trashed versions included). */
  async lastNumber(tx: Tx, fileId: string): Promise<number> {
    const raw = await tx
      .createQueryBuilder(FileVersionEntity, 'v')
      .select('COALESCE(MAX(v.number), 0)', 'n')
      .where('v.file_id = :fileId', { fileId })
      .getRawOne<{ n: string }>();
    return Number(raw?.n ?? 0);
  }

  /** Inserts a version; its blob gains a reference (trigger). */
  async insert(tx: Tx, version: FileVersionEntity): Promise<void> {
    await tx.insert(FileVersionEntity, version);
  }

  /** The file's current version stops being current (a new one is inserted next). */
  async clearCurrent(tx: Tx, fileId: string): Promise<void> {
    await tx.update(FileVersionEntity, { fileId, current: true }, { current: false });
  }

  async setPinned(tx: Tx, id: string, pinned: boolean): Promise<void> {
    await tx.update(FileVersionEntity, { id }, { pinned });
  }

  /**
   * Moves to the trash the live unpinned versions of a file beyond the newest `keep`
   * (the current one always kept); returns how many.
   */
  async trashBeyond(tx: Tx, fileId: string, keep: number, by: string, purgeAt: Date): Promise<number> {
    const result: [unknown[], number] = await tx.query(
      `UPDATE file_versions SET deleted_at = now(), deleted_by = $3, purge_at = $4
       WHERE id IN (
         SELECT id FROM file_versions WHERE file_id = $1 AND deleted_at IS NULL AND NOT pinned
         ORDER BY current DESC, number DESC OFFSET $2)`,
      [fileId, Math.max(keep, 1), by, purgeAt],
    );
    return result[1];
  }

  create(fields: Partial<FileVersionEntity>): FileVersionEntity {
    return this.tx.none.create(FileVersionEntity, fields);
  }

  private async joined(tx: Tx, where: string, params: Record<string, unknown>): Promise<VersionWithBlob[]> {
    const { entities, raw } = await tx
      .createQueryBuilder(FileVersionEntity, 'v')
      .innerJoin('blobs', 'b', 'b.id = v.blob_id')
      .addSelect(['b.size AS size', 'b.sha256 AS sha256', 'b.storage_key AS storage_key'])
      .where(where, params)
      .orderBy('v.number', 'DESC')
      .getRawAndEntities<JoinedRow>();
    const byId = new Map(raw.map((r) => [r.v_id, r]));
    return entities.map((version) => {
      const r = byId.get(version.id) as JoinedRow;
      return { version, size: Number(r.size), sha256: r.sha256, storageKey: r.storage_key };
    });
  }
}
