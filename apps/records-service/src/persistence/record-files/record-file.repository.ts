import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { RecordFileEntity } from './record-file.entity';
import { Transactions, Tx } from '@vault/platform/persistence';
import { EntityRows, entityRows, opaque, preparedQuery } from '../entity-rows';

/** Queries and locks of record file metadata. */
@Injectable()
export class RecordFileRepository {
  private rows?: EntityRows<RecordFileEntity>;

  constructor(private readonly tx: Transactions) {}

  nameTaken(recordId: string, fileName: string): Promise<boolean> {
    return this.tx.none.getRepository(RecordFileEntity).exists({ where: { recordId, fileName, deletedAt: IsNull() } });
  }

  /**
   * The record's files, oldest upload first (`newestFirst`: newest first). Plain SQL
   * (built once): the file list of every record read.
   */
  async list(recordId: string, newestFirst = false): Promise<RecordFileEntity[]> {
    const { select, toEntity } = this.meta();
    const order = newestFirst ? 'DESC' : 'ASC';
    const rows = await preparedQuery(
      this.tx.none,
      `record_files_of_record_${order}`,
      `SELECT ${select} FROM record_files WHERE record_id = $1 AND deleted_at IS NULL ORDER BY created_at ${order}, id ${order}`,
      [recordId],
    );
    return rows.map(toEntity);
  }

  /** The files of several records, each record's oldest upload first, in one statement. */
  async listOfRecords(recordIds: string[]): Promise<Map<string, RecordFileEntity[]>> {
    const byRecord = new Map<string, RecordFileEntity[]>(recordIds.map((id) => [id, []]));
    if (recordIds.length === 0) return byRecord;
    const { select, toEntity } = this.meta();
    const rows = await preparedQuery(
      this.tx.none,
      'record_files_of_records',
      `SELECT ${select} FROM record_files WHERE record_id = ANY(${opaque('$1::uuid[]')}::uuid[]) AND deleted_at IS NULL
        ORDER BY record_id, created_at, id`,
      [recordIds],
    );
    for (const f of rows.map(toEntity)) byRecord.get(f.recordId)?.push(f);
    return byRecord;
  }

  /** Files by record and name, in one statement; keyed by `fileKey` (absent when not found). */
  async findMany(files: { recordId: string; fileName: string }[]): Promise<Map<string, RecordFileEntity>> {
    if (files.length === 0) return new Map();
    const rows = await this.tx.none
      .createQueryBuilder(RecordFileEntity, 'f')
      .where('f.deleted_at IS NULL')
      .andWhere('(f.record_id, f.file_name) IN (SELECT * FROM unnest(CAST(:recordIds AS uuid[]), CAST(:fileNames AS text[])))', {
        recordIds: files.map((f) => f.recordId),
        fileNames: files.map((f) => f.fileName),
      })
      .getMany();
    return new Map(rows.map((f) => [fileKey(f.recordId, f.fileName), f]));
  }

  find(recordId: string, fileName: string): Promise<RecordFileEntity | null> {
    return this.tx.none.findOne(RecordFileEntity, { where: { recordId, fileName, deletedAt: IsNull() } });
  }

  lock(tx: Tx, recordId: string, fileName: string): Promise<RecordFileEntity | null> {
    return tx.findOne(RecordFileEntity, {
      where: { recordId, fileName, deletedAt: IsNull() },
      lock: { mode: 'pessimistic_write' },
    });
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

  /** The plain-SQL select list and row mapper of the table (built once). */
  private meta(): EntityRows<RecordFileEntity> {
    this.rows ??= entityRows(this.tx.none.connection, RecordFileEntity);
    return this.rows;
  }
}

/** The key of a file among the files of several records (RecordFileRepository.findMany). */
export const fileKey = (recordId: string, fileName: string) => `${recordId}/${fileName}`;

/** The unique index that keeps file names unique within a record. */
export const FILE_NAME_INDEX = 'record_files_name_uq';
