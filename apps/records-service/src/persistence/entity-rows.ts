import type { DataSource, EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ApplyValueTransformers } from 'typeorm/util/ApplyValueTransformers';

/** A row as the pg driver answers it, by column name. */
export type Row = Record<string, unknown>;

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

/** What a prepared read uses of the pg Pool under TypeORM's postgres driver. */
interface PgPool {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: Row[] }>;
}

/**
 * A read outside any transaction (`manager` is the data source's own) as a named prepared
 * statement on a connection of TypeORM's pool: each connection parses and plans it once,
 * later requests only bind and execute it. `T` is the row as the statement's select list
 * names its columns (unchecked, as any raw query's). Inside a transaction (or without a pg pool)
 * through the manager, as any statement.
 */
export async function preparedRead<T extends object = Row>(
  manager: EntityManager,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const pool = (manager.connection.driver as unknown as { master?: PgPool }).master;
  if (manager.queryRunner || manager !== manager.connection.manager || !pool?.query) return manager.query(text, values);
  return (await pool.query({ name, text, values })).rows as T[];
}
