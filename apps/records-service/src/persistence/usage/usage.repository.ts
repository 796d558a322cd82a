import { Injectable } from '@nestjs/common';
import { RecordFileEntity } from '../record-files/record-file.entity';
import { RecordEntity } from '../records/record.entity';
import { ResumableUploadEntity } from '../resumable-uploads/resumable-upload.entity';
import { Transactions, Tx } from '@vault/platform/persistence';

/** Which rows a byte sum covers: a record's, or (joined through records) a vault's. */
interface ByteScope {
  join: boolean;
  where: string;
  id: string;
}

/** The declared length of an open resumable upload (its reservation). */
const OPEN_LENGTH = 'f.upload_length';

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
   * Bytes of all files of the vault's records, plus the declared length of every
   * resumable upload still open on them (reserved until it commits, expires or ends).
   */
  async vaultBytes(vaultId: string, tx: Tx = this.tx.none): Promise<number> {
    const scope: ByteScope = { join: true, where: 'r.vault_id = :id', id: vaultId };
    return (
      (await this.sum(tx, RecordFileEntity, 'f.size', scope)) + (await this.sum(tx, ResumableUploadEntity, OPEN_LENGTH, scope))
    );
  }

  /**
   * Bytes of the files of one record, plus the declared length of its open resumable
   * uploads: a record that moves takes both with it.
   */
  async recordBytes(recordId: string, tx: Tx = this.tx.none): Promise<number> {
    const scope: ByteScope = { join: false, where: 'f.record_id = :id', id: recordId };
    return (
      (await this.sum(tx, RecordFileEntity, 'f.size', scope)) + (await this.sum(tx, ResumableUploadEntity, OPEN_LENGTH, scope))
    );
  }

  /** SUM of `column` over the rows (alias `f`) of `entity` in `scope` (by record, or joined to the vault). */
  private async sum(
    tx: Tx,
    entity: typeof RecordFileEntity | typeof ResumableUploadEntity,
    column: string,
    { join, where, id }: ByteScope,
  ): Promise<number> {
    const qb = tx.getRepository(entity).createQueryBuilder('f').select(`COALESCE(SUM(${column}), 0)`, 'total');
    if (join) qb.innerJoin(RecordEntity, 'r', 'r.id = f.record_id');
    qb.where(where, { id });
    if (entity === ResumableUploadEntity) {
      // a complete upload is being committed: its commit counts its bytes itself
      qb.andWhere('f.upload_offset < f.upload_length');
    }
    const raw = await qb.getRawOne<{ total: string }>();
    return Number(raw?.total ?? 0);
  }
}
