import { Client } from 'pg';
import { QueryFailedError } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../testing/database';
import { isResultTypeChange, withStatementName } from './statement-names';

/**
 * A named statement prepared on a connection, then a migration that changes its result's
 * shape (a column's type; a column added under `SELECT *`), on one connection of real
 * PostgreSQL kept for the whole suite (as a transaction's connection is kept by its pool;
 * pg's Pool#query drops a connection whose query failed): what a running instance sees while
 * a newer one migrates.
 */
describe('withStatementName', () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;
  let client: Client;

  beforeAll(async () => {
    db = await createTestDatabase('statement_names');
    client = new Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db.drop();
  });

  /** A table of one row and a statement over it, prepared on the connection. */
  async function prepared(table: string, select: string) {
    await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, name varchar(10) NOT NULL)`);
    await client.query(`INSERT INTO ${table} VALUES (1, 'one')`);
    const statement = `${table}_read`;
    const text = `SELECT ${select} FROM ${table} WHERE id = $1`;
    const raw = (name: string) => client.query({ name, text, values: [1] }).then((r) => r.rows as object[]);
    expect(await raw(statement)).toEqual([{ id: 1, name: 'one' }]);
    return { statement, raw };
  }

  it('PostgreSQL refuses a prepared statement whose result changed type, at every execution', async () => {
    const { statement, raw } = await prepared('typed', 'id, name');
    await client.query(`ALTER TABLE typed ALTER COLUMN name TYPE text`);
    for (let i = 0; i < 2; i++) {
      const err = await raw(statement).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isResultTypeChange(err)).toBe(true);
      // as TypeORM's query runner throws it
      expect(isResultTypeChange(new QueryFailedError('SELECT', [], err as Error))).toBe(true);
    }
    await client.query('DISCARD PLANS');
    await expect(raw(statement)).rejects.toThrow('cached plan must not change result type');
  });

  it('outside a transaction, renames the statement and sends it again: the caller gets its rows', async () => {
    const { statement, raw } = await prepared('retyped', 'id, name');
    await client.query(`ALTER TABLE retyped ALTER COLUMN name TYPE text`);
    const names: string[] = [];
    const run = (name: string) => (names.push(name), raw(name));
    expect(await withStatementName(statement, true, run)).toEqual([{ id: 1, name: 'one' }]);
    // later calls use the new name at once
    expect(await withStatementName(statement, true, run)).toEqual([{ id: 1, name: 'one' }]);
    expect(names[0]).toBe(statement);
    expect(names[1]).not.toBe(statement);
    expect(names.slice(1)).toEqual([names[1], names[1]]);
  });

  it('in a transaction, fails that one call and renames the statement for the next', async () => {
    const { statement } = await prepared('widened', '*');
    await client.query(`ALTER TABLE widened ADD COLUMN extra int`);
    const inTx = (name: string) =>
      client.query({ name, text: `SELECT * FROM widened WHERE id = $1`, values: [1] }).then((r) => r.rows as object[]);
    await client.query('BEGIN');
    await expect(withStatementName(statement, false, inTx)).rejects.toThrow('cached plan must not change result type');
    await client.query('ROLLBACK');
    await client.query('BEGIN');
    expect(await withStatementName(statement, false, inTx)).toEqual([{ id: 1, name: 'one', extra: null }]);
    await client.query('COMMIT');
  });

  it('passes any other error through, without renaming', async () => {
    expect(isResultTypeChange(new QueryFailedError('SELECT', [], new Error('cached plan must not change result type')))).toBe(
      false,
    );
    const names: string[] = [];
    const failing = (name: string) => (names.push(name), client.query({ name, text: 'SELECT 1 FROM missing_table', values: [] }));
    await expect(withStatementName('missing_read', true, failing)).rejects.toThrow('relation "missing_table" does not exist');
    await expect(withStatementName('missing_read', true, failing)).rejects.toThrow('does not exist');
    expect(names).toEqual(['missing_read', 'missing_read']);
  });
});
