import { DataSource, type Logger as TypeOrmLogger } from 'typeorm';
import { joinRequestTransactions, RequestTransaction, runInRequestTransaction } from '../idempotency/request-transaction';
import { createTestDatabase, TestDatabase } from '../testing/database';
import { Transactions } from './transactions';

/** Every statement TypeORM sends, in order (nothing else is kept). */
class StatementLog implements TypeOrmLogger {
  readonly statements: string[] = [];
  logQuery(query: string): void {
    this.statements.push(query);
  }
  logQueryError = ignore;
  logQuerySlow = ignore;
  logSchemaBuild = ignore;
  logMigration = ignore;
  log = ignore;
}

function ignore(): void {
  return undefined;
}

/**
 * Transactions.runCommittingWith on PostgreSQL: an item is inserted and a counter claimed by a
 * function that raises at its limit (the shape of a record create and its place in the vault).
 */
describe('Transactions.runCommittingWith', () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;
  let ds: DataSource;
  let log: StatementLog;
  let tx: Transactions;

  beforeAll(async () => {
    db = await createTestDatabase('tx_commit_with');
    log = new StatementLog();
    ds = await new DataSource({ type: 'postgres', url: db.url, extra: { max: 2 }, logger: log }).initialize();
    joinRequestTransactions(ds);
    tx = new Transactions(ds);
    await ds.query(`CREATE TABLE items (id int PRIMARY KEY)`);
    await ds.query(`CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)`);
    await ds.query(`INSERT INTO counters VALUES (1, 0)`);
    await ds.query(`
      CREATE FUNCTION claim_below(p_max int) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE counters SET n = n + 1 WHERE id = 1 AND n < p_max;
        IF NOT FOUND THEN RAISE EXCEPTION 'full' USING ERRCODE = 'VR001'; END IF;
      END $$`);
  });
  afterAll(async () => {
    await ds?.destroy();
    await db.drop();
  });

  const items = async () => (await ds.query(`SELECT id FROM items ORDER BY id`)).map((r: { id: number }) => r.id);
  const count = async () => (await ds.query(`SELECT n FROM counters`))[0].n as number;
  const create = (id: number, max: number) =>
    tx.runCommittingWith(async (m) => {
      await m.query(`INSERT INTO items VALUES ($1)`, [id]);
      return { result: id, last: `SELECT claim_below(${max})` };
    });

  it('commits the work with its last statement, the COMMIT in the same message', async () => {
    log.statements.length = 0;
    await expect(create(1, 1)).resolves.toBe(1);
    expect(await items()).toEqual([1]);
    expect(await count()).toBe(1);
    const sent = log.statements.slice(0, -2); // the two reads above
    expect(sent.at(-1)).toBe('SELECT claim_below(1);\nCOMMIT');
    expect(sent.filter((s) => /^COMMIT$/i.test(s.trim()))).toEqual([]);
  });

  it('rolls everything back when the last statement refuses, and the connection serves on', async () => {
    const refused = await create(2, 1).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((refused as { code?: string }).code).toBe('VR001');
    expect(await items()).toEqual([1]);
    expect(await count()).toBe(1);
    // both pool connections are free and outside any transaction
    await expect(create(3, 5)).resolves.toBe(3);
    await expect(create(4, 5)).resolves.toBe(4);
    expect(await items()).toEqual([1, 3, 4]);
  });

  it('rolls back when the work fails before its last statement', async () => {
    const failed = tx.runCommittingWith(async (m) => {
      await m.query(`INSERT INTO items VALUES (5)`);
      throw new Error('the work failed');
    });
    await expect(failed).rejects.toThrow('the work failed');
    expect(await items()).toEqual([1, 3, 4]);
  });

  it("inside an Idempotency-Key request, commits only with the request's own commit", async () => {
    const request = new RequestTransaction(ds, true);
    await runInRequestTransaction(request, () => create(6, 10));
    expect(await items()).toEqual([1, 3, 4]); // not visible: the request has not committed
    await request.commit(async () => undefined);
    expect(await items()).toEqual([1, 3, 4, 6]);
    expect(await count()).toBe(4);
  });
});
