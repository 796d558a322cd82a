import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { metricsRegistry } from '@vault/platform/observability';
import { freePort, TestDatabase, TestNatsServer } from '@vault/platform/testing';
import { DataSource } from 'typeorm';
import { OutboxRelayService } from '../src/capabilities/events/outbox-relay.service';
import { migratedDataSource, produce, startWorker, uniqueNamespace, waitFor, Worker } from './activity-log.harness';
import { binary, filesPath, meta, upload } from './files-support';
import { createRecordsDatabase } from './records-database';
import { RecordsTestApp } from './support';

const ROOT = join(__dirname, '../../..');
const ENTRY = join(__dirname, 'activity-log.process.ts');

/** Value of one series in a Prometheus text exposition, or undefined when absent. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/**
 * The outbox relay and the activity-log writer report what operators watch: the outbox
 * backlog and published count, the writer's stored and dead-lettered messages, its NATS
 * connection; the writer process serves them on its health server.
 */
describe('activity-log pipeline metrics', () => {
  jest.setTimeout(90_000);
  const tenantId = 'tenant-metrics';
  const vault = { id: randomUUID(), name: 'Metrics' };
  let nats: TestNatsServer;
  let db: TestDatabase;
  let ds: DataSource;
  let env: Record<string, string>;
  let relay: Worker | undefined;
  let writer: ChildProcess | undefined;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await createRecordsDatabase('worker_metrics');
    ds = await migratedDataSource(db.url);
    env = { DATABASE_URL: db.url, NATS_URL: nats.url, EVENTS_NAMESPACE: uniqueNamespace('metrics'), OUTBOX_RELAY_POLL_MS: '200' };
  });

  afterAll(async () => {
    if (writer && writer.exitCode === null) {
      const exited = new Promise((r) => writer?.once('exit', r));
      writer.kill('SIGTERM');
      await exited;
    }
    await relay?.close();
    await ds?.destroy();
    await db?.drop();
    await nats?.dispose();
  });

  it('counts the outbox backlog while a batch is in flight, then the rows the relay published', async () => {
    await produce(ds, tenantId, vault, 3, { committed: [], rolledBack: [] });
    relay = await startWorker(env, { relay: false, writer: false });
    let backlogInFlight: number | undefined;
    let oldestInFlight: number | undefined;
    await new Promise((r) => setTimeout(r, 50));
    await relay.ctx.get(OutboxRelayService).start(async () => {
      // JetStream acknowledged the batch; the rows are not marked published yet.
      const text = await metricsRegistry.metrics();
      backlogInFlight = sample(text, 'outbox_backlog_rows{table="outbox_events"}');
      oldestInFlight = sample(text, 'outbox_oldest_unpublished_age_seconds{table="outbox_events"}');
    });
    await waitFor(
      async () => sample(await metricsRegistry.metrics(), 'outbox_relay_published_total{table="outbox_events"}') === 3,
      20_000,
      'three rows published',
    );
    expect(backlogInFlight).toBe(3);
    // the rows were written 50 ms or more before the relay started
    expect(oldestInFlight).toBeGreaterThanOrEqual(0.05);
    const after = await metricsRegistry.metrics();
    expect(sample(after, 'outbox_backlog_rows{table="outbox_events"}')).toBe(0);
    expect(sample(after, 'outbox_oldest_unpublished_age_seconds{table="outbox_events"}')).toBe(0);
  });

  it('serves the writer process metrics on its health port: messages stored, NATS up, probes by route', async () => {
    const port = await freePort();
    writer = spawn(process.execPath, ['-r', '@swc-node/register', ENTRY, 'writer'], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        WORKER_HEALTH_PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'test',
        DB_MIGRATE_ON_START: 'false',
        LOG_LEVEL: 'error',
        SWC_NODE_PROJECT: join(ROOT, 'tsconfig.base.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    writer.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    writer.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    const scrape = async () => {
      const res = await fetch(`${base}/metrics`).catch(() => undefined);
      return res?.status === 200 ? res.text() : '';
    };
    const processed = (text: string) => sample(text, 'jetstream_consumer_processed_total{consumer="activity_log_writer"}');
    await waitFor(async () => processed(await scrape()) === 3, 40_000, `the writer to store the three events: ${out}`).catch(
      async (err: Error) => {
        throw new Error(
          `${err.message}\n${(await scrape())
            .split('\n')
            .filter((l) => l.startsWith('jetstream'))
            .join('\n')}`,
        );
      },
    );
    await fetch(`${base}/health/ready`);
    const text = await scrape();
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(sample(text, 'nats_connection_up{connection="records-activity-log-writer"}')).toBe(1);
    expect(sample(text, 'jetstream_consumer_dead_lettered_total{consumer="activity_log_writer"}') ?? 0).toBe(0);
    // the consumer info: nothing left to deliver or to acknowledge, nothing delivered twice
    expect(sample(text, 'jetstream_consumer_pending_messages{consumer="activity_log_writer",state="undelivered"}')).toBe(0);
    expect(sample(text, 'jetstream_consumer_pending_messages{consumer="activity_log_writer",state="unacknowledged"}')).toBe(0);
    expect(sample(text, 'jetstream_consumer_redelivered_total{consumer="activity_log_writer"}')).toBeUndefined();
    // the process's database pool: open connections, none waiting
    expect(sample(text, 'db_pool_connections{pool="records-activity-log-writer",state="total"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'db_pool_connections{pool="records-activity-log-writer",state="waiting"}')).toBe(0);
    expect(
      sample(text, 'http_server_request_duration_seconds_count{method="GET",route="/health/ready",status_code="200"}'),
    ).toBeGreaterThanOrEqual(1);
    // the scrapes themselves (answered 200 outside any route) are not counted as requests
    expect(text).not.toMatch(/route="unmatched",status_code="200"/);
  });

  it('counts the bytes of record files received (uploads) and sent (whole and ranged downloads)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'metered-files-'));
    // (the worker above left DB_MIGRATE_ON_START=false in the environment)
    const t = await RecordsTestApp.start('file_bytes_metrics', {
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      DB_MIGRATE_ON_START: 'true',
    });
    try {
      const bytesOf = async (direction: string) =>
        sample(await metricsRegistry.metrics(), `file_bytes_total{direction="${direction}"}`) ?? 0;
      const owner = await t.caller('tenant-a', 'mia');
      const vaultId = await t.createVault(owner);
      const recordId = await t.createRecord(owner, vaultId);
      const [inBefore, outBefore] = [await bytesOf('in'), await bytesOf('out')];
      await upload(t, owner, vaultId, recordId, { bytes: randomBytes(5000), meta: meta('metered.pdf') }).expect(201);
      expect(await bytesOf('in')).toBe(inBefore + 5000);
      expect(await bytesOf('out')).toBe(outBefore);
      const file = `${filesPath(vaultId, recordId)}/metered.pdf`;
      expect((await binary(t.get(owner, file)).expect(200)).body).toHaveLength(5000);
      expect((await binary(t.get(owner, file).set('Range', 'bytes=100-199')).expect(206)).body).toHaveLength(100);
      await waitFor(async () => (await bytesOf('out')) === outBefore + 5100, 5000, 'the downloaded bytes counted');
    } finally {
      await t.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
