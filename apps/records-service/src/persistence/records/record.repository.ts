import { Injectable } from '@nestjs/common';
import type { RecordStatus } from '@vault/contracts';
import { In, Not } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { RecordEntity } from './record.entity';
import { Transactions, Tx } from '@vault/platform/persistence';

/** Filters of a record search; every given filter must hold. */
export interface RecordSearchFilter {
  /** Exactly this status; without it every status but DELETED. */
  status?: RecordStatus;
  /** Substring of the name, case-insensitive. */
  name?: string;
  uniqueReference?: string;
  /** Substring of recordSubtypeOther, case-insensitive. */
  subtypeOther?: string;
  typeIds?: string[];
  subtypeIds?: string[];
  /** Only records this account holds a role on (the search of a record guest). */
  sharedWith?: string;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Queries and locks of record rows. */
@Injectable()
export class RecordRepository {
  constructor(private readonly tx: Transactions) {}

  /** Records by id, in one statement (those not found are absent). */
  async byIds(ids: string[]): Promise<Map<string, RecordEntity>> {
    if (ids.length === 0) return new Map();
    return new Map((await this.tx.none.findBy(RecordEntity, { id: In(ids) })).map((r) => [r.id, r]));
  }

  /**
   * Locks the record of the vault unless it is DELETED: `write` for a change of the
   * record, `read` to keep it from changing or moving while its files change.
   */
  lockLive(tx: Tx, id: string, vaultId: string, mode: 'write' | 'read'): Promise<RecordEntity | null> {
    return tx.findOne(RecordEntity, {
      where: { id, vaultId, status: Not('DELETED') },
      lock: { mode: mode === 'write' ? 'pessimistic_write' : 'pessimistic_read' },
    });
  }

  /** Records of a vault matching the filter, most recently changed first. */
  search(vaultId: string, f: RecordSearchFilter): Promise<RecordEntity[]> {
    return this.searchQuery(vaultId, f).getMany();
  }

  /** One page of the search (`offset`, `limit`) with the number of all matches. */
  searchPage(vaultId: string, f: RecordSearchFilter, offset: number, limit: number): Promise<[RecordEntity[], number]> {
    return this.searchQuery(vaultId, f).offset(offset).limit(limit).getManyAndCount();
  }

  private searchQuery(vaultId: string, f: RecordSearchFilter) {
    const qb = this.tx.none
      .getRepository(RecordEntity)
      .createQueryBuilder('r')
      .where('r.vault_id = :vaultId', { vaultId })
      .orderBy('r.updated_at', 'DESC')
      .addOrderBy('r.id', 'ASC');
    if (f.status) qb.andWhere('r.status = :status', { status: f.status });
    else qb.andWhere(`r.status <> 'DELETED'`);
    if (f.name) qb.andWhere(`r.name ILIKE :name ESCAPE '\\'`, { name: `%${escapeLike(f.name)}%` });
    if (f.uniqueReference) qb.andWhere('r.unique_reference = :ref', { ref: f.uniqueReference });
    if (f.subtypeOther) {
      qb.andWhere(`r.record_subtype_other ILIKE :other ESCAPE '\\'`, { other: `%${escapeLike(f.subtypeOther)}%` });
    }
    if (f.typeIds) qb.andWhere('r.record_type_id IN (:...typeIds)', { typeIds: f.typeIds });
    if (f.subtypeIds) qb.andWhere('r.record_subtype_id IN (:...subtypeIds)', { subtypeIds: f.subtypeIds });
    if (f.sharedWith !== undefined) {
      qb.andWhere('EXISTS (SELECT 1 FROM record_memberships m WHERE m.record_id = r.id AND m.open_id = :sharedWith)', {
        sharedWith: f.sharedWith,
      });
    }
    return qb;
  }

  /** Live records of the vault the account holds a role on, counted by record type id. */
  async liveByTypeSharedWith(vaultId: string, openId: string): Promise<Map<string, number>> {
    const rows: { typeId: string; count: string }[] = await this.tx.none.query(
      `SELECT r.record_type_id AS "typeId", count(*) AS count FROM records r
       JOIN record_memberships m ON m.record_id = r.id AND m.open_id = $2
       WHERE r.vault_id = $1 AND r.status <> 'DELETED'
       GROUP BY r.record_type_id`,
      [vaultId, openId],
    );
    return new Map(rows.map((r) => [r.typeId, Number(r.count)]));
  }

  create(fields: Partial<RecordEntity>): RecordEntity {
    return this.tx.none.create(RecordEntity, fields);
  }

  /** Inserts a new record (its id and timestamps are filled in). */
  async insert(tx: Tx, record: RecordEntity): Promise<void> {
    await tx.save(record);
  }

  /**
   * Writes the given fields of a record in one UPDATE (updated_at set, version
   * incremented), without reading it again: the caller holds its row lock. Returns
   * the new version.
   */
  async update(tx: Tx, id: string, changes: Partial<RecordEntity>): Promise<number> {
    const result = await tx
      .createQueryBuilder()
      .update(RecordEntity)
      .set(changes as QueryDeepPartialEntity<RecordEntity>)
      .where('id = :id', { id })
      .returning(['version'])
      .execute();
    return (result.raw as { version: number }[])[0].version;
  }

  /**
   * A new version of the record without changing its fields (its files changed, and
   * they are part of what a record read shows); updated_at and the search order stay.
   */
  async bumpVersion(tx: Tx, id: string): Promise<void> {
    await tx.query('UPDATE records SET version = version + 1 WHERE id = $1', [id]);
  }
}
