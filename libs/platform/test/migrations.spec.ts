import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { createTestDatabase, TestDatabase } from '../src/testing/database';
import { dataSourceOptions, migrateWithLock, POOL_IDLE_MS } from '../src/persistence/database.module';

class SlowTable1700000000000 implements MigrationInterface {
  name = 'SlowTable1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE slow_things (id int PRIMARY KEY)');
    await q.query('SELECT pg_sleep(0.3)');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE slow_things');
  }
}

describe('migrations under an advisory lock', () => {
  let db: TestDatabase;
  const sources: DataSource[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('platform_migrate');
  });
  afterAll(async () => {
    for (const ds of sources) if (ds.isInitialized) await ds.destroy();
    await db?.drop();
  });

  it('lets replicas start together: each migration runs exactly once', async () => {
    const replicas = await Promise.all(
      [1, 2, 3].map(async () => {
        const ds = new DataSource(dataSourceOptions(db.url, { entities: [], migrations: [SlowTable1700000000000] }, false));
        sources.push(ds);
        return ds.initialize();
      }),
    );
    const applied = await Promise.all(replicas.map((ds) => migrateWithLock(ds)));
    expect(applied.map((a) => a.length).sort()).toEqual([0, 0, 1]);
    const rows = await replicas[0].query('SELECT name FROM migrations');
    expect(rows).toEqual([{ name: 'SlowTable1700000000000' }]);
  });

  it("keeps the pool's idle connections through a quiet spell (not pg-pool's 10 s)", async () => {
    const ds = await new DataSource(dataSourceOptions(db.url, { entities: [], migrations: [] }, false)).initialize();
    sources.push(ds);
    await Promise.all([1, 2, 3].map(() => ds.query('SELECT pg_sleep(0.05)')));
    const pool = (ds.driver as unknown as { master: { options: { idleTimeoutMillis: number }; idleCount: number } }).master;
    expect(pool.idleCount).toBe(3);
    expect(pool.options.idleTimeoutMillis).toBe(POOL_IDLE_MS);
    expect(POOL_IDLE_MS).toBeGreaterThanOrEqual(60_000);
  });
});
