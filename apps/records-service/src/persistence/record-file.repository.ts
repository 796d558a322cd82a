import { Injectable } from '@nestjs/common';
import { RecordFileEntity } from './record-file.entity';
import { Transactions, Tx } from './transactions';

/** Queries and locks of record file metadata. */
@Injectable()
export class RecordFileRepository {
  constructor(private readonly tx: Transactions) {}

  nameTaken(recordId: string, fileName: string): Promise<boolean> {
    return this.tx.none.getRepository(RecordFileEntity).exists({ where: { recordId, fileName } });
  }

  /** The record's files, oldest upload first (`newestFirst`: newest first). */
  list(recordId: string, newestFirst = false): Promise<RecordFileEntity[]> {
    const order = newestFirst ? 'DESC' : 'ASC';
    return this.tx.none.find(RecordFileEntity, { where: { recordId }, order: { createdAt: order, id: order } });
  }

  find(recordId: string, fileName: string): Promise<RecordFileEntity | null> {
    return this.tx.none.findOne(RecordFileEntity, { where: { recordId, fileName } });
  }

  lock(tx: Tx, recordId: string, fileName: string): Promise<RecordFileEntity | null> {
    return tx.findOne(RecordFileEntity, { where: { recordId, fileName }, lock: { mode: 'pessimistic_write' } });
  }

  create(fields: Partial<RecordFileEntity>): RecordFileEntity {
    return this.tx.none.create(RecordFileEntity, fields);
  }

  /** Inserts the row; a taken name fails on the unique index `record_files_name_uq`. */
  async insert(tx: Tx, file: RecordFileEntity): Promise<void> {
    await tx.insert(RecordFileEntity, file);
  }

  async save(tx: Tx, file: RecordFileEntity): Promise<void> {
    await tx.save(file);
  }

  /** Deletes the row; a trigger queues its bytes for removal. */
  async delete(tx: Tx, id: string): Promise<void> {
    await tx.delete(RecordFileEntity, { id });
  }

  /** Deletes every file of a record; a trigger queues their bytes for removal. */
  async deleteAllOfRecord(tx: Tx, recordId: string): Promise<void> {
    await tx.delete(RecordFileEntity, { recordId });
  }
}

/** The unique index that keeps file names unique within a record. */
export const FILE_NAME_INDEX = 'record_files_name_uq';
