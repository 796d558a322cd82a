import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { RecordRole, RecordStatus } from '@vault/contracts';
import { RecordEntity } from './record.entity';
import { Transactions, Tx } from '@vault/platform/persistence';
import { EntityRows, entityRows, plannedQuery, preparedQuery, RowsSource, RowsWrite, typedParams } from '../entity-rows';

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

const SEARCH_ORDER = 'ORDER BY r.updated_at DESC, r.id ASC';

/**
 * The conditions of a search of the vault's records (aliased `r`) and their parameters,
 * with the filter's shape (which filters are given) for the statement's name: one named
 * prepared statement per shape.
 */
function searchWhere(vaultId: string, f: RecordSearchFilter): { where: string; params: unknown[]; shape: string } {
  const params: unknown[] = [vaultId];
  const p = (value: unknown) => `$${params.push(value)}`;
  const where = ['r.vault_id = $1'];
  let shape = '';
  const given = (letter: string, condition: string) => {
    where.push(condition);
    shape += letter;
  };
  if (f.status) given('s', `r.status = ${p(f.status)}`);
  else where.push(`r.status <> 'DELETED'`);
  if (f.name) given('n', `r.name ILIKE ${p(`%${escapeLike(f.name)}%`)} ESCAPE '\\'`);
  if (f.uniqueReference) given('u', `r.unique_reference = ${p(f.uniqueReference)}`);
  if (f.subtypeOther) given('o', `r.record_subtype_other ILIKE ${p(`%${escapeLike(f.subtypeOther)}%`)} ESCAPE '\\'`);
  if (f.typeIds) given('t', `r.record_type_id = ANY(${p(f.typeIds)}::uuid[])`);
  if (f.subtypeIds) given('y', `r.record_subtype_id = ANY(${p(f.subtypeIds)}::uuid[])`);
  if (f.sharedWith !== undefined) {
    given('g', `EXISTS (SELECT 1 FROM record_memberships m WHERE m.record_id = r.id AND m.open_id = ${p(f.sharedWith)})`);
  }
  return { where: where.join(' AND '), params, shape: shape || 'all' };
}

/** What a search item shows of a record: the columns it reads (the same as the reference's search). */
export type RecordSearchRow = Pick<
  RecordEntity,
  | 'id'
  | 'name'
  | 'storageLocation'
  | 'recordSubtypeOther'
  | 'description'
  | 'recordTypeId'
  | 'recordSubtypeId'
  | 'status'
  | 'updatedAt'
  | 'lastModifiedBy'
  | 'editable'
>;

/**
 * The select list of a search under the row's property names (the pg driver answers
 * these columns as TypeORM hydrated them), so a row is the search row as it comes.
 */
const SEARCH_SELECT = `r.id, r.name, r.storage_location AS "storageLocation", r.record_subtype_other AS "recordSubtypeOther",
  r.description, r.record_type_id AS "recordTypeId", r.record_subtype_id AS "recordSubtypeId", r.status,
  r.updated_at AS "updatedAt", r.last_modified_by AS "lastModifiedBy", r.editable`;

/** The record columns written by an insert, with their types, in the order of its parameters ($1 to $16). */
const INSERTED_COLUMNS: [column: string, type: string][] = [
  ['id', 'uuid'],
  ['tenant_id', 'text'],
  ['vault_id', 'uuid'],
  ['name', 'text'],
  ['description', 'text'],
  ['unique_reference', 'text'],
  ['storage_location', 'text'],
  ['record_type_id', 'uuid'],
  ['record_subtype_id', 'uuid'],
  ['record_subtype_other', 'text'],
  ['editable', 'boolean'],
  ['record_details', 'jsonb'],
  ['status', 'text'],
  ['active', 'boolean'],
  ['created_by', 'text'],
  ['last_modified_by', 'text'],
];
const INSERTED = INSERTED_COLUMNS.map(([column]) => column).join(', ');
const INSERTED_VALUES = typedParams(
  INSERTED_COLUMNS.map(([, type]) => type),
  1,
).join(', ');

/** Queries and locks of record rows. */
@Injectable()
export class RecordRepository {
  private rows?: EntityRows<RecordEntity>;
  private readonly names = new Map<string, string>();

  constructor(private readonly tx: Transactions) {}

  /** Records by id, in one statement (those not found are absent). */
  async byIds(ids: string[]): Promise<Map<string, RecordEntity>> {
    if (ids.length === 0) return new Map();
    const { select, toEntity } = this.meta();
    const rows = await plannedQuery(this.tx.none, `SELECT ${select} FROM records WHERE id = ANY($1::uuid[])`, [ids]);
    return new Map(rows.map((row) => toEntity(row)).map((r) => [r.id, r]));
  }

  /**
   * Locks the record of the vault unless it is DELETED: `write` for a change of the
   * record, `read` to keep it from changing or moving while its files change.
   */
  async lockLive(tx: Tx, id: string, vaultId: string, mode: 'write' | 'read'): Promise<RecordEntity | null> {
    const { select, toEntity } = this.meta();
    const rows = await preparedQuery(
      tx,
      `records_lock_live_${mode}`,
      `SELECT ${select} FROM records WHERE id = $1 AND vault_id = $2 AND status <> 'DELETED' ${mode === 'write' ? 'FOR UPDATE' : 'FOR SHARE'}`,
      [id, vaultId],
    );
    return rows[0] ? toEntity(rows[0]) : null;
  }

  /**
   * Records of a vault matching the filter, most recently changed first: plain SQL as a
   * named prepared statement per filter shape (planned once per connection).
   */
  async search(vaultId: string, f: RecordSearchFilter): Promise<RecordSearchRow[]> {
    const { where, params, shape } = searchWhere(vaultId, f);
    return this.read<RecordSearchRow>(
      `record_search_${shape}`,
      `SELECT ${SEARCH_SELECT} FROM records r WHERE ${where} ${SEARCH_ORDER}`,
      params,
    );
  }

  /** One page of the search (`offset`, `limit`) with the number of all matches. */
  async searchPage(vaultId: string, f: RecordSearchFilter, offset: number, limit: number): Promise<[RecordSearchRow[], number]> {
    const { where, params, shape } = searchWhere(vaultId, f);
    const n = params.length;
    const rows = await this.read<RecordSearchRow>(
      `record_search_page_${shape}`,
      `SELECT ${SEARCH_SELECT} FROM records r WHERE ${where} ${SEARCH_ORDER} OFFSET $${n + 1} LIMIT $${n + 2}`,
      [...params, offset, limit],
    );
    const counted = await this.read<{ n: number }>(
      `record_search_count_${shape}`,
      `SELECT count(*)::int AS n FROM records r WHERE ${where}`,
      params,
    );
    return [rows, counted[0].n];
  }

  private read<T extends object>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return preparedQuery<T>(this.tx.none, name, text, values);
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

  /** A new record object (not stored yet). */
  create(fields: Partial<RecordEntity>): RecordEntity {
    return Object.assign(new RecordEntity(), fields);
  }

  /**
   * Inserts a new record with the caller's role on it (`role`, the creator's rec_owner) and
   * `also` (its event) in one statement, plain SQL, no transaction around it
   * (Transactions.single), once the claim `place` (the statement's first part) answered its
   * row: nothing is written when it answers none. Version, timestamps and the other defaults
   * are the database's, and nothing is read back (a TypeORM save would first look the id up
   * and then hydrate the defaults it returns). Answers whether the record was created, and
   * whether its vault was found (a refused claim in a vault that exists: the vault is full).
   */
  async insertWithRole(
    tx: Tx,
    record: RecordEntity,
    openId: string,
    role: RecordRole,
    place: RowsSource,
    also: RowsWrite,
  ): Promise<{ created: boolean; vaultFound: boolean }> {
    const values = [
      record.id,
      record.tenantId,
      record.vaultId,
      record.name,
      record.description,
      record.uniqueReference,
      record.storageLocation,
      record.recordTypeId,
      record.recordSubtypeId,
      record.recordSubtypeOther,
      record.editable,
      JSON.stringify(record.recordDetails ?? {}),
      record.status,
      record.active,
      record.createdBy,
      record.lastModifiedBy,
      openId,
      role,
    ];
    const text = `WITH place AS (${place.sql(values.length + 1)}),
      r AS (INSERT INTO records (${INSERTED}) SELECT ${INSERTED_VALUES} FROM place RETURNING id, tenant_id),
      m AS (INSERT INTO record_memberships (record_id, tenant_id, open_id, role) SELECT r.id, r.tenant_id, $17::text, $18::text FROM r),
      also AS (${also.sql('r', values.length + place.params.length + 1)})
      SELECT EXISTS (SELECT 1 FROM r) AS created, EXISTS (SELECT 1 FROM vaults WHERE id = $3::uuid) AS vault_found`;
    const [row] = await preparedQuery<{ created: boolean; vault_found: boolean }>(
      tx,
      this.statementName('records_insert', text),
      text,
      [...values, ...place.params, ...also.params],
    );
    return { created: row.created, vaultFound: row.vault_found };
  }

  /**
   * Writes the given fields of a record in one UPDATE (updated_at set, version
   * incremented), without reading it again: the caller holds its row lock. Returns
   * the new version. Plain SQL from the entity's column names.
   */
  async update(tx: Tx, id: string, changes: Partial<RecordEntity>): Promise<number> {
    const { sets, params } = this.setsOf(changes, [id]);
    const text = `UPDATE records SET ${sets} WHERE id = $1 RETURNING version`;
    const rows = await preparedQuery<{ version: number }>(tx, this.statementName('records_update', text), text, params);
    return rows[0].version;
  }

  /**
   * Changes the record as update() does if it is live in the vault `target` names (and at its
   * `version`, when given), and makes `also` in the same statement (its event): no lock read,
   * and no transaction around it (Transactions.single). The new version, or null when the
   * record is gone, moved or at another version: then nothing is written.
   */
  async updateLive(
    tx: Tx,
    target: { id: string; vaultId: string; version?: number },
    changes: Partial<RecordEntity>,
    also: RowsWrite,
  ): Promise<number | null> {
    const where = ['id = $1', 'vault_id = $2', `status <> 'DELETED'`];
    const first: unknown[] = [target.id, target.vaultId];
    if (target.version !== undefined) {
      first.push(target.version);
      where.push(`version = $${first.length}`);
    }
    const { sets, params } = this.setsOf(changes, first);
    const text = `WITH changed AS (UPDATE records SET ${sets} WHERE ${where.join(' AND ')} RETURNING version),
      also AS (${also.sql('changed', params.length + 1)})
      SELECT version FROM changed`;
    const rows = await preparedQuery<{ version: number }>(tx, this.statementName('records_update_live', text), text, [
      ...params,
      ...also.params,
    ]);
    return rows[0]?.version ?? null;
  }

  /** The SET list of a change (with the new version and updated_at), its parameters after `params`. */
  private setsOf(changes: Partial<RecordEntity>, params: unknown[]): { sets: string; params: unknown[] } {
    const { column: columnOf } = this.meta();
    const sets: string[] = [];
    for (const [property, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      const column = columnOf(property);
      if (!column) throw new Error(`records has no column for ${property}`);
      params.push(column.type === 'jsonb' && value !== null ? JSON.stringify(value) : value);
      sets.push(`"${column.databaseName}" = $${params.length}`);
    }
    return { sets: [...sets, 'version = version + 1', 'updated_at = now()'].join(', '), params };
  }

  /** One named statement per text (a few: one per set of columns a change writes). */
  private statementName(prefix: string, text: string): string {
    let name = this.names.get(text);
    if (!name) {
      name = `${prefix}_${createHash('sha1').update(text).digest('base64url').slice(0, 16)}`;
      this.names.set(text, name);
    }
    return name;
  }

  /**
   * A new version of the record without changing its fields (its files changed, and
   * they are part of what a record read shows); updated_at and the search order stay.
   */
  async bumpVersion(tx: Tx, id: string): Promise<void> {
    await tx.query('UPDATE records SET version = version + 1 WHERE id = $1', [id]);
  }

  /** The select list and row mapper of whole record rows (plain SQL, built once). */
  private meta(): EntityRows<RecordEntity> {
    this.rows ??= entityRows(this.tx.none.connection, RecordEntity);
    return this.rows;
  }
}
