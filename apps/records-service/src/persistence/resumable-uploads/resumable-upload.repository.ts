import { Injectable } from '@nestjs/common';
import { escapeLiteral } from 'pg';
import { LessThanOrEqual } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { ResumableUploadEntity } from './resumable-upload.entity';
import { Transactions, Tx } from '@vault/platform/persistence';

/** Open resumable uploads (their reservations count in UsageRepository.vaultBytes). */
@Injectable()
export class ResumableUploadRepository {
  constructor(private readonly tx: Transactions) {}

  async insert(tx: Tx, row: ResumableUploadEntity): Promise<void> {
    // the adapter's state is a JSON object TypeORM cannot type deeply
    await tx.insert(ResumableUploadEntity, row as QueryDeepPartialEntity<ResumableUploadEntity>);
  }

  /** The upload when it belongs to this record and this caller (anyone else: undefined). */
  async findOwned(id: string, recordId: string, ownerOpenId: string): Promise<ResumableUploadEntity | undefined> {
    const [row] = (await this.tx.none.query(this.ownedStatement(id, recordId, ownerOpenId))) as Record<string, unknown>[];
    return row ? this.ownedFromRow(row) : undefined;
  }

  /**
   * The statement of `findOwned`, complete SQL text (values inlined; `id` must be a UUID), also
   * sent by the upload's lock right after its own statement in one round trip; its row, if any,
   * becomes the entity through `ownedFromRow`. The columns are the entity's own.
   */
  ownedStatement(id: string, recordId: string, ownerOpenId: string): string {
    const columns = this.columns().map((c) => `"${c.databaseName}"`);
    return (
      `SELECT ${columns.join(', ')} FROM resumable_uploads ` +
      `WHERE id = ${escapeLiteral(id)} AND record_id = ${escapeLiteral(recordId)} ` +
      `AND owner_open_id = ${escapeLiteral(ownerOpenId)}`
    );
  }

  /** The entity of a row read by `ownedStatement`, each value hydrated as TypeORM hydrates it. */
  ownedFromRow(row: Record<string, unknown>): ResumableUploadEntity {
    const { driver } = this.tx.none.connection;
    const entity = new ResumableUploadEntity();
    for (const c of this.columns()) c.setEntityValue(entity, driver.prepareHydratedValue(row[c.databaseName], c));
    return entity;
  }

  private columns() {
    return this.tx.none.connection.getMetadata(ResumableUploadEntity).columns;
  }

  /** Uploads the caller has open (all records). */
  countOpenOf(ownerOpenId: string, tx: Tx = this.tx.none): Promise<number> {
    return tx.count(ResumableUploadEntity, { where: { ownerOpenId } });
  }

  /** Uploads open into the records of one tenant (every caller's). */
  countOpenInTenant(tenantId: string, tx: Tx = this.tx.none): Promise<number> {
    return tx.count(ResumableUploadEntity, { where: { tenantId } });
  }

  /**
   * Records the bytes a chunk added, only if nobody moved the upload meanwhile
   * (`from` is the offset the chunk started at); returns whether it was recorded.
   */
  async advance(id: string, from: number, change: Pick<ResumableUploadEntity, 'offset' | 'storeState'>): Promise<boolean> {
    const [, affected] = (await this.tx.none.query(this.advanceStatement(id, from, change))) as [unknown, number];
    return affected === 1;
  }

  /**
   * The statement of `advance`, SQL text with its values inlined (escaped), also sent by the
   * upload's lock with its commit and unlock (PgUploadLocker.commitThenUnlock).
   */
  advanceStatement(id: string, from: number, change: Pick<ResumableUploadEntity, 'offset' | 'storeState'>): string {
    return (
      `UPDATE resumable_uploads SET upload_offset = ${integer(change.offset)}, ` +
      `store_state = ${escapeLiteral(JSON.stringify(change.storeState))}::jsonb ` +
      `WHERE id = ${escapeLiteral(id)} AND upload_offset = ${integer(from)}`
    );
  }

  /** Deletes the row (its reservation ends); returns whether it was there. */
  async delete(id: string, tx: Tx = this.tx.none): Promise<boolean> {
    const result = await tx.delete(ResumableUploadEntity, { id });
    return result.affected === 1;
  }

  /** Locks up to `limit` uploads past their expiry, skipping those another instance holds. */
  lockExpired(tx: Tx, limit: number): Promise<ResumableUploadEntity[]> {
    return tx.find(ResumableUploadEntity, {
      where: { expiresAt: LessThanOrEqual(new Date()) },
      order: { expiresAt: 'ASC' },
      take: limit,
      lock: { mode: 'pessimistic_write', onLocked: 'skip_locked' },
    });
  }
}

/** A byte offset as SQL text (never anything but a safe integer). */
function integer(n: number): string {
  if (!Number.isSafeInteger(n)) throw new Error(`not an offset: ${n}`);
  return String(n);
}
