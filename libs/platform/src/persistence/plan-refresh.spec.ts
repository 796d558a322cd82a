import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../testing/database';
import { refreshCachedPlans } from './plan-refresh';

/**
 * A named statement's generic plan, made while its table held six rows, against the same
 * statement once the table has grown to thousands (no ANALYZE in between): PostgreSQL's
 * plan as EXPLAIN EXECUTE shows it on the pool's one connection.
 */
describe('refreshCachedPlans', () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('plan_refresh');
  });
  afterAll(() => db.drop());

  async function planAfterGrowth(refresh: boolean): Promise<string> {
    const ds = await new DataSource({ type: 'postgres', url: db.url, extra: { max: 1 } }).initialize();
    try {
      let clock = 0;
      if (refresh) refreshCachedPlans(ds, 1_000, () => clock);
      const pool = (ds.driver as unknown as { master: Pool }).master;
      const table = `t_${refresh ? 'refreshed' : 'kept'}`;
      await pool.query(`CREATE TABLE ${table} (id uuid PRIMARY KEY, n int NOT NULL) WITH (autovacuum_enabled = false)`);
      await pool.query(`INSERT INTO ${table} SELECT gen_random_uuid(), i FROM generate_series(1, 6) i`);
      await pool.query(`ANALYZE ${table}`);
      const id = randomUUID();
      const lookup = () => pool.query({ name: 'lookup', text: `SELECT n FROM ${table} WHERE id = $1`, values: [id] });
      const plan = async () =>
        (await pool.query(`EXPLAIN EXECUTE lookup('${id}')`)).rows
          .map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN'])
          .join('\n');
      for (let i = 0; i < 8; i++) await lookup();
      expect(await plan()).toMatch(/Seq Scan/);

      await pool.query(`INSERT INTO ${table} SELECT gen_random_uuid(), i FROM generate_series(1, 20000) i`);
      clock += 1_000; // the plans are as old as allowed: the next hand-out drops them
      for (let i = 0; i < 8; i++) await lookup();
      return await plan();
    } finally {
      await ds.destroy();
    }
  }

  it('plans a statement again once its plans are older than allowed, for the table as it is now', async () => {
    const plan = await planAfterGrowth(true);
    // a generic plan again ($1): the statement is not planned at every execution from now on
    expect(plan).toMatch(/Index Scan/);
    expect(plan).toContain('Index Cond: (id = $1)');
  });

  it('without it, the connection keeps the plan made for the small table', async () => {
    expect(await planAfterGrowth(false)).toMatch(/Seq Scan/);
  });
});
