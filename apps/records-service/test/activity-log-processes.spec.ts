import { ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { freePort, TestDatabase, TestNatsServer } from '@vault/platform/testing';
import { DataSource } from 'typeorm';
import {
  entryCounts,
  expectExactlyOnce,
  migratedDataSource,
  produce,
  startWorker,
  uniqueNamespace,
  waitFor,
  Worker,
} from './activity-log.harness';
import { createRecordsDatabase } from './records-database';

const ROOT = join(__dirname, '../../..');
const ENTRY = join(__dirname, 'activity-log.process.ts');

/**
 * The same faults as activity-log-faults.spec.ts, with the relay or writer as
 * a real OS process killed with SIGKILL: no shutdown hook, no nak, the
 * PostgreSQL and NATS connections just drop.
 */
describe('activity log with relay and writer processes killed -9', () => {
  jest.setTimeout(120_000);
  const tenantId = 'tenant-processes';
  const vault = { id: randomUUID(), name: 'Family' };
  const committed: string[] = [];
  const rolledBack: string[] = [];
  let nats: TestNatsServer;
  let db: TestDatabase;
  let ds: DataSource;
  let env: Record<string, string>;
  const workers: Worker[] = [];
  const processes: ChildProcess[] = [];

  /** Where the processes write a diagnostic report when sent SIGUSR2 (see `hangReport`). */
  let reports = '';
  beforeAll(() => (reports = mkdtempSync(join(tmpdir(), 'activity-log-reports-'))));
  afterAll(() => rmSync(reports, { recursive: true, force: true }));

  /** Starts the entry script in `mode` as its own node process; resolves with it and its stdout lines. */
  const spawnProcess = (mode: string, extraEnv: Record<string, string> = {}) => {
    const report = ['--report-on-signal', '--report-signal=SIGUSR2', `--report-directory=${reports}`];
    const child = spawn(process.execPath, [...report, '-r', '@swc-node/register', ENTRY, mode], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        ...extraEnv,
        NODE_ENV: 'test',
        DB_MIGRATE_ON_START: 'false',
        LOG_LEVEL: 'error',
        SWC_NODE_PROJECT: join(ROOT, 'tsconfig.base.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    processes.push(child);
    return { child, output: () => out };
  };
  /**
   * What keeps an idle process that does not exit alive: the libuv handles still active and
   * referenced (sockets with their peers, timers, servers) in Node's diagnostic report of it
   * (SIGUSR2). A process stuck in JavaScript writes none (the report is written from the event
   * loop): then that is the answer.
   */
  const hangReport = async (child: ChildProcess): Promise<string> => {
    const name = new RegExp(`^report\\.\\d{8}\\.\\d{6}\\.${child.pid}\\.\\d+\\.\\d+\\.json$`);
    type Report = {
      libuv?: { type: string; is_active?: boolean; is_referenced?: boolean; localEndpoint?: unknown; remoteEndpoint?: unknown }[];
    };
    let report: Report | undefined;
    const read = () => {
      const file = readdirSync(reports).find((f) => name.test(f));
      try {
        // a report still being written does not parse yet
        report = file ? (JSON.parse(readFileSync(join(reports, file), 'utf8')) as Report) : undefined;
      } catch {
        report = undefined;
      }
      return report !== undefined;
    };
    child.kill('SIGUSR2');
    await waitFor(async () => read(), 5_000, 'a diagnostic report').catch(() => undefined);
    if (!report) return 'no diagnostic report (the process does not reach its event loop)';
    const handles = (report.libuv ?? [])
      .filter((h) => h.is_referenced && h.is_active)
      .map((h) => {
        const peer = h.remoteEndpoint ? ` to ${JSON.stringify(h.remoteEndpoint)}` : '';
        const local = h.localEndpoint && !h.remoteEndpoint ? ` on ${JSON.stringify(h.localEndpoint)}` : '';
        return `${h.type}${peer}${local}`;
      });
    return `active handles: ${handles.join(', ')}`;
  };
  const kill9 = async (child: ChildProcess) => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  };
  const unlockedUnpublished = async () => {
    // Rows a relay could claim now (not locked by a live transaction).
    return ds.transaction(async (m) => {
      const rows = await m.query(`SELECT id FROM outbox_events WHERE published_at IS NULL FOR UPDATE SKIP LOCKED`);
      return rows.length as number;
    });
  };

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await createRecordsDatabase('activity_log_processes');
    ds = await migratedDataSource(db.url);
    env = {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('procs'),
      OUTBOX_RELAY_POLL_MS: '200',
      ACTIVITY_LOG_ACK_WAIT_MS: '2000',
    };
  });

  afterEach(async () => {
    for (const c of processes.splice(0)) if (c.exitCode === null && c.signalCode === null) await kill9(c);
    for (const w of workers.splice(0)) await w.close();
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
    await nats?.dispose();
  });

  it('serves health on WORKER_HEALTH_PORT in a writer process and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const writer = spawnProcess('writer', { WORKER_HEALTH_PORT: String(port), HOST: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      async () => (await fetch(`${base}/health/ready`).catch(() => undefined))?.status === 200,
      30_000,
      "the writer's health endpoint",
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the writer printed: ${writer.output()}`);
    });
    const ready = await (await fetch(`${base}/health/ready`)).json();
    expect(ready).toMatchObject({
      status: 'ok',
      details: { lifecycle: { status: 'up' }, database: { status: 'up' }, nats: { status: 'up' } },
    });
    const live = await fetch(`${base}/health/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get('x-powered-by')).toBeNull();
    const missing = await fetch(`${base}/api/v1/vault`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/application\/problem\+json/);

    writer.child.kill('SIGTERM');
    // bounded below the test's own timeout, so that a shutdown that hangs says what the writer printed
    await waitFor(
      async () => writer.child.exitCode !== null || writer.child.signalCode !== null,
      60_000,
      'the writer to exit',
    ).catch(async (err: Error) => {
      throw new Error(`${err.message} on SIGTERM; the writer printed: ${writer.output()}; ${await hangReport(writer.child)}`);
    });
    expect(writer.child.exitCode).toBe(0);
  });

  it('republishes the batch of a relay process killed after publishing, before marking', async () => {
    await produce(ds, tenantId, vault, 30, { rollbackEvery: 5, committed, rolledBack });
    const relay = spawnProcess('relay-stalls');
    await waitFor(async () => relay.output().includes('PUBLISHED'), 30_000, `the relay to publish: ${relay.output()}`);
    // Claimed by the stalled relay's open transaction: no other relay can take them.
    expect(await unlockedUnpublished()).toBe(0);
    await kill9(relay.child);
    // The dead connection's transaction is rolled back: the rows are unpublished and free again.
    await waitFor(async () => (await unlockedUnpublished()) === 24, 10_000, 'the rows to be released');
    workers.push(await startWorker(env, { relay: true, writer: true }));
    await expectExactlyOnce(ds, committed, rolledBack);
    const nc = await connect({ servers: nats.url });
    const info = await (await jetstreamManager(nc)).streams.info(workers[0].streams.events.name);
    await nc.close();
    expect(info.state.messages).toBe(24);
  });

  it('loses nothing and logs nothing twice when writer processes are killed mid-stream', async () => {
    workers.push(await startWorker(env, { relay: true, writer: false }));
    const first = spawnProcess('writer');
    const before = (await entryCounts(ds)).size;
    const producing = produce(ds, tenantId, vault, 600, { perSecond: 200, rollbackEvery: 9, committed, rolledBack });
    await waitFor(async () => (await entryCounts(ds)).size >= before + 60, 30_000, `the writer to log: ${first.output()}`);
    await kill9(first.child);
    const second = spawnProcess('writer');
    await waitFor(async () => (await entryCounts(ds)).size >= before + 250, 30_000, `the second writer: ${second.output()}`);
    await kill9(second.child);
    await producing;
    spawnProcess('writer');
    spawnProcess('writer');
    await expectExactlyOnce(ds, committed, rolledBack, 60_000);
  });
});
