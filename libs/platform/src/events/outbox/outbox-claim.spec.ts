import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import { EventNamespace } from '../jetstream/namespace';
import { ensureStream } from '../jetstream/streams';
import { createTestDatabase, TestDatabase, withAdminClient } from '../../testing/database';
import { TestNatsServer } from '../../testing/nats-server';
import { backlogQueries, UNPUBLISHED_SCAN_SETTINGS, claimQuery, OutboxRelay } from './outbox-relay';
import { createOutboxTable, insertOutboxEvents } from './outbox-table';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

interface PlanNode {
  'Node Type': string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Actual Rows': number;
  Plans?: PlanNode[];
}
const nodeTypes = (n: PlanNode): string[] => [n['Node Type'], ...(n.Plans ?? []).flatMap(nodeTypes)];

/**
 * The relay's claim and its backlog gauges on an outbox whose published rows were not vacuumed
 * (autovacuum off for the table): they read the few unpublished rows without visiting the heap
 * pages of the published ones, for the index of unpublished rows createOutboxTable makes and for records-service's
 * older one on `occurred_at` alone. And its commit: a trigger records `synchronous_commit` as
 * each write to an outbox sees it (one pooled connection, so the writes after a relay batch run
 * on the connection it used).
 */
describe("the outbox relay's claim and commit (real PostgreSQL and NATS)", () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;
  let ds: DataSource;
  let server: TestNatsServer;
  let nc: NatsConnection;

  beforeAll(async () => {
    db = await createTestDatabase('outbox_claim');
    // npm test's own PostgreSQL (when none answers) runs with synchronous_commit off: this
    // database commits as a production one does, whatever the server's setting
    await withAdminClient((admin) => admin.query(`ALTER DATABASE "${db.name}" SET synchronous_commit = on`));
    ds = await new DataSource({ type: 'postgres', url: db.url, extra: { max: 1 } }).initialize();
    const q = ds.createQueryRunner();
    for (const table of ['claim_outbox', 'claim_outbox_by_time', 'commit_outbox']) {
      await createOutboxTable(q, table);
      await q.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    }
    await q.query(`DROP INDEX claim_outbox_by_time_unpublished_idx`);
    await q.query(
      `CREATE INDEX claim_outbox_by_time_unpublished_idx ON claim_outbox_by_time (occurred_at) WHERE published_at IS NULL`,
    );
    await q.query(`CREATE TABLE commit_settings (seq bigserial PRIMARY KEY, op text NOT NULL, setting text NOT NULL)`);
    await q.query(`CREATE FUNCTION commit_setting() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO commit_settings (op, setting) VALUES (TG_OP, current_setting('synchronous_commit'));
        RETURN NULL;
      END $$`);
    await q.query(
      `CREATE TRIGGER commit_setting AFTER INSERT OR UPDATE ON commit_outbox FOR EACH STATEMENT EXECUTE FUNCTION commit_setting()`,
    );
    await q.release();
    server = await TestNatsServer.start();
    nc = await connect({ servers: server.url });
    await ensureStream(await jetstreamManager(nc), { name: 'CL', subjects: ['cl.>'], replicas: 1, duplicateWindowMs: 60_000 });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.dispose();
    await ds?.destroy();
    await db?.drop();
  });

  const write = (table: string, n: number) =>
    ds.transaction((m) =>
      insertOutboxEvents(
        m,
        table,
        Array.from({ length: n }, () => ({ id: randomUUID(), subject: 'cl.x', payload: {}, occurredAt: new Date() })),
      ),
    );

  const relayOf = (table: string) =>
    new OutboxRelay({
      dataSource: ds,
      js: jetstream(nc),
      namespace: new EventNamespace(),
      table,
      channel: table,
      listenUrl: db.url,
      batchSize: 100,
      pollIntervalMs: 1000,
      publishTimeoutMs: 5000,
      logger: quiet,
    });

  it.each(['claim_outbox', 'claim_outbox_by_time'])('%s: reads the rows left without the published ones', async (table) => {
    const relay = relayOf(table);
    for (let i = 0; i < 30; i++) {
      await write(table, 100);
      expect(await relay.relayOnce()).toBe(100);
    }
    // the claim after them meets the 3,000 dead entries of the published rows once
    await write(table, 2);
    expect(await relay.relayOnce()).toBe(2);
    await write(table, 2);
    const planOf = (query: string) =>
      ds.transaction(async (m) => {
        await m.query(UNPUBLISHED_SCAN_SETTINGS);
        const [row] = await m.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query}`);
        return row['QUERY PLAN'][0].Plan as PlanNode;
      });
    const blocks = (plan: PlanNode) => plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
    /**
     * A scan marks a dead entry once no transaction can still see its row; until then a scan
     * visits its heap page. The plan's blocks after at most 100 scans, 100 ms apart (a clean-clone
     * CI run, the other suites running beside it, still read 480 blocks after 20); a bitmap scan
     * reads about 85 here (a heap page per 40 published rows) however often it runs, and more as
     * rows accumulate.
     */
    const settled = async (query: string) => {
      let plan = await planOf(query);
      for (let i = 0; i < 100 && blocks(plan) >= 40; i++) {
        await new Promise((r) => setTimeout(r, 100));
        plan = await planOf(query);
      }
      return plan;
    };
    const { rows, oldestAgeSeconds } = backlogQueries(table);
    const claim = await settled(claimQuery(table, 100));
    expect(claim['Actual Rows']).toBe(2);
    // the backlog gauges read the same rows at every scrape
    for (const plan of [claim, await settled(rows), await settled(oldestAgeSeconds)]) {
      expect(nodeTypes(plan)).not.toContain('Bitmap Heap Scan');
      expect(blocks(plan)).toBeLessThan(40);
    }
    expect(await relay.backlog()).toBe(2);
    const age = await relay.oldestAgeSeconds();
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThan(60);
  });

  it('marks published rows in a transaction that does not wait for the disk; the writes before and after it do', async () => {
    const relay = relayOf('commit_outbox');
    await write('commit_outbox', 1);
    await write('commit_outbox', 1);
    expect(await relay.relayOnce()).toBe(2);
    await write('commit_outbox', 1);
    const rows: { op: string; setting: string }[] = await ds.query(`SELECT op, setting FROM commit_settings ORDER BY seq`);
    expect(rows).toEqual([
      { op: 'INSERT', setting: 'on' },
      { op: 'INSERT', setting: 'on' },
      { op: 'UPDATE', setting: 'off' },
      { op: 'INSERT', setting: 'on' },
    ]);
  });
});
