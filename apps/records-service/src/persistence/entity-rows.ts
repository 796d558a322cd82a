import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ApplyValueTransformers } from 'typeorm/util/ApplyValueTransformers';
import { withStatementName } from '@vault/platform/persistence';

/** A row as the pg driver answers it, by column name. */
export type Row = Record<string, unknown>;

/**
 * A write that a larger statement makes once for each row of one of its WITH queries
 * (`source`): its SQL, with parameters numbered from `first`, and their values. For a change
 * that one statement makes with what must commit with it (an event's outbox row).
 */
export interface RowsWrite {
  sql(source: string, first: number): string;
  params: unknown[];
}

/**
 * Parameters `$first`, `$first + 1`, … cast to the types of the columns they fill: a SELECT
 * list (of `INSERT … SELECT`, RowsWrite, RowsSource) gives its parameters no type of its own.
 */
export const typedParams = (types: string[], first: number): string[] => types.map((type, i) => `$${first + i}::${type}`);

/**
 * A part of a larger statement that answers the rows (none or some) the parts after it act on
 * (a claim that answers a row when it succeeded): its SQL, with parameters numbered from
 * `first`, and their values.
 */
export interface RowsSource {
  sql(first: number): string;
  params: unknown[];
}

/**
 * Plain SQL over an entity's table, for the statements every request runs: the select
 * list written once from the entity's column metadata and a row-to-entity mapper that
 * does what TypeORM's hydration does for these columns (value transformers applied), at
 * a fraction of the cost of building and hydrating a query per request.
 */
export interface EntityRows<T> {
  /** `"col1", "col2", …` (or `a."col1" AS "a_col1", …` with `alias`): every column of the entity. */
  select: string;
  /** The entity of a row selected with `select`. */
  toEntity(row: Row): T;
  /** The column of a property (undefined when the entity has none). */
  column(property: string): ColumnMetadata | undefined;
}

/** Column types whose values the pg driver answers as TypeORM hydrates them. */
const SAME_AS_HYDRATED = new Set([
  'uuid',
  'text',
  'varchar',
  'character varying',
  'boolean',
  'bool',
  'smallint',
  'integer',
  'int',
  'int2',
  'int4',
  // answered as strings by both (unless a transformer makes numbers of them)
  'bigint',
  'int8',
  'jsonb',
  'timestamptz',
  'timestamp with time zone',
]);

export function entityRows<T extends ObjectLiteral>(ds: DataSource, entity: EntityTarget<T>, alias?: string): EntityRows<T> {
  const metadata = ds.getMetadata(entity);
  const columns = metadata.columns;
  for (const c of columns) {
    const type = typeof c.type === 'string' ? c.type : '';
    if (!SAME_AS_HYDRATED.has(type))
      throw new Error(`${metadata.tableName}.${c.databaseName}: type ${type} needs TypeORM's hydration`);
  }
  const name = (c: ColumnMetadata) => (alias ? `${alias}_${c.databaseName}` : c.databaseName);
  const byProperty = new Map(columns.map((c) => [c.propertyName, c]));
  return {
    select: columns.map((c) => (alias ? `${alias}."${c.databaseName}" AS "${name(c)}"` : `"${c.databaseName}"`)).join(', '),
    toEntity: (row) => {
      const out = metadata.create() as Row;
      for (const c of columns) {
        const value = row[name(c)];
        out[c.propertyName] =
          c.transformer && value !== null ? ApplyValueTransformers.transformFrom(c.transformer, value) : value;
      }
      return out as T;
    },
    column: (property) => byProperty.get(property),
  };
}

/** What a named statement uses of the pg Pool, or of the pg client of a query runner, under TypeORM's postgres driver. */
interface PgQueryable {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}

/**
 * A statement (a read, or a write with its answer) as a named prepared statement: each
 * connection parses it once, later requests only bind and execute it (PostgreSQL keeps a
 * generic plan once it is no dearer than the first custom ones). Outside any transaction
 * (`manager` is the data source's own) on a connection of TypeORM's pool; inside one
 * (`manager` of a query runner) on the transaction's own connection. `T` is the row as the
 * statement's select list names its columns (unchecked, as any raw query's). Without a pg
 * pool or client, through the manager, as any statement.
 */
export async function preparedQuery<T extends object = Row>(
  manager: EntityManager,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  return pgQuery<T>(manager, name, text, values);
}

/**
 * Array parameters whose lengths the planner does not look at, for a named statement that takes a
 * batch as arrays (`unnest(…)`, `= ANY(…)`): each is read through a sub-select (`(SELECT $1::uuid[])`).
 * A custom plan, which sees an array's length (one or two rows) where the generic plan assumes
 * ten, then estimates the batch as the generic plan does, is no cheaper, and PostgreSQL keeps the
 * generic plan after its first five executions instead of planning the statement anew at every
 * call (docs/architecture.md). Inside `= ANY(…)` the sub-select is cast again
 * (`ANY(${opaque('$1::uuid[]')}::uuid[])`): alone there, PostgreSQL would compare with its rows.
 */
export const opaque = (...params: string[]): string => params.map((p) => `(SELECT ${p})`).join(', ');

/**
 * A statement planned anew at each execution, for its parameters and the tables as they
 * are now, on the same connections as preparedQuery: for a lookup by a list of keys
 * (`= ANY($1)`), whose generic plan, made while the table was small, scans the whole
 * table however much it has grown since.
 */
export async function plannedQuery<T extends object = Row>(
  manager: EntityManager,
  text: string,
  values: unknown[],
): Promise<T[]> {
  return pgQuery<T>(manager, undefined, text, values);
}

async function pgQuery<T extends object>(
  manager: EntityManager,
  name: string | undefined,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const target = manager.queryRunner
    ? ((await manager.queryRunner.connect()) as PgQueryable | undefined)
    : manager === manager.connection.manager
      ? (manager.connection.driver as unknown as { master?: PgQueryable }).master
      : undefined;
  if (!target?.query) return manager.query(text, values);
  if (!name) return (await target.query({ text, values })).rows as T[];
  // a statement whose result a migration reshaped is prepared again under a new name
  // (withStatementName); outside a transaction, at once
  const inTransaction = manager.queryRunner?.isTransactionActive ?? false;
  return withStatementName(name, !inTransaction, async (sent) => (await target.query({ name: sent, text, values })).rows as T[]);
}
