import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { SUBJECTS, type VaultEventBase } from '@vault/contracts';
import { TestDatabase, TestNatsServer } from '@vault/platform/testing';
import { DataSource } from 'typeorm';
import {
  deleteNamespaceStreams,
  entryCounts,
  expectExactlyOnce,
  migratedDataSource,
  operation,
  produce,
  recordEvent,
  startWorker,
  uniqueNamespace,
  waitFor,
  Worker,
} from './activity-log.harness';
import { createRecordsDatabase } from './records-database';

/**
 * Failure behaviour of the outbox → JetStream → writer pipeline, against a
 * private nats-server (free port, temporary store) and a real PostgreSQL
 * database. After every fault, each committed operation has exactly one log
 * entry and rolled-back operations none.
 */
describe('activity log pipeline under faults', () => {
  jest.setTimeout(120_000);
  const tenantId = 'tenant-faults';
  const vault = { id: randomUUID(), name: 'Family' };
  const committed: string[] = [];
  const rolledBack: string[] = [];
  let nats: TestNatsServer;
  let db: TestDatabase;
  let ds: DataSource;
  let env: Record<string, string>;
  const workers: Worker[] = [];

  const start = async (roles: { relay: boolean; writer: boolean }, extra: Record<string, string> = {}) => {
    const w = await startWorker({ ...env, ...extra }, roles);
    workers.push(w);
    return w;
  };
  const streamMessages = async (stream: string) => {
    const nc = await connect({ servers: nats.url });
    try {
      return (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
    } finally {
      await nc.close();
    }
  };
  /**
   * Publishes the stream's last message again (same subject, body and message id) until it is
   * not a duplicate: NATS forgets ids oldest first, so every earlier id is forgotten by then.
   */
  const republishWhenForgotten = async (stream: string) => {
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const seq = (await jsm.streams.info(stream)).state.last_seq;
      const last = await jsm.streams.getMessage(stream, { seq });
      const msgID = last?.header.get('Nats-Msg-Id');
      if (!last || !msgID) throw new Error('the stream has no last message with an id');
      await waitFor(
        async () => !(await jetstream(nc).publish(last.subject, last.data, { msgID })).duplicate,
        30_000,
        'NATS to forget the published message ids',
      );
    } finally {
      await nc.close();
    }
  };
  const stopAll = async () => {
    for (const w of workers.splice(0)) await w.close();
  };

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await createRecordsDatabase('activity_log_faults');
    ds = await migratedDataSource(db.url);
    env = {
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('faults'),
      OUTBOX_RELAY_POLL_MS: '200',
      ACTIVITY_LOG_ACK_WAIT_MS: '2000',
    };
  });

  afterEach(stopAll);

  afterAll(async () => {
    await stopAll();
    await ds?.destroy();
    await db?.drop();
    await nats?.dispose();
  });

  it('logs operations committed while no relay ran, and never rolled-back ones', async () => {
    await produce(ds, tenantId, vault, 40, { rollbackEvery: 4, committed, rolledBack });
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL`);
    expect(n).toBe(30);
    await start({ relay: true, writer: true });
    await expectExactlyOnce(ds, committed, rolledBack);
    const [{ left }] = await ds.query(`SELECT count(*)::int AS left FROM outbox_events WHERE published_at IS NULL`);
    expect(left).toBe(0);
  });

  it('resumes after the writer stops mid-stream, with two writer replicas sharing the consumer', async () => {
    await start({ relay: true, writer: false });
    const writer = await start({ relay: false, writer: true });
    const producing = produce(ds, tenantId, vault, 300, { perSecond: 300, rollbackEvery: 10, committed, rolledBack });
    await waitFor(async () => writer.writer.processed >= 40, 20_000, 'the writer to start logging');
    await writer.close();
    const loggedWhileUp = (await entryCounts(ds)).size;
    await producing;
    // Nothing new is logged while no writer runs.
    await new Promise((r) => setTimeout(r, 500));
    expect((await entryCounts(ds)).size).toBe(loggedWhileUp);
    expect(loggedWhileUp).toBeLessThan(committed.length);
    const a = await start({ relay: false, writer: true });
    const b = await start({ relay: false, writer: true });
    await expectExactlyOnce(ds, committed, rolledBack);
    expect(a.writer.processed + b.writer.processed).toBeGreaterThan(0);
  });

  it.each([
    ['SIGTERM', 'SIGTERM' as const],
    ['kill -9', 'SIGKILL' as const],
  ])('loses nothing and logs nothing twice when NATS restarts (%s)', async (_, signal) => {
    await start({ relay: true, writer: true });
    const producing = produce(ds, tenantId, vault, 200, { perSecond: 200, rollbackEvery: 7, committed, rolledBack });
    await new Promise((r) => setTimeout(r, 300));
    await nats.stop(signal);
    await new Promise((r) => setTimeout(r, 700));
    await nats.restart();
    await producing;
    await expectExactlyOnce(ds, committed, rolledBack, 60_000);
  });

  it('republishes what a relay published but did not mark before it died (inside the duplicate window)', async () => {
    let crashed!: () => void;
    const died = new Promise<void>((r) => (crashed = r));
    const doomed = await start({ relay: false, writer: false });
    await produce(ds, tenantId, vault, 25, { committed, rolledBack });
    await doomed.relay.start(() => {
      crashed();
      throw new Error('relay process died after publishing, before marking the rows');
    });
    await died;
    await doomed.close();
    const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM outbox_events WHERE published_at IS NULL`);
    expect(n).toBe(25);
    const before = await streamMessages(doomed.streams.events.name);
    await start({ relay: true, writer: true });
    await expectExactlyOnce(ds, committed, rolledBack);
    // JetStream dropped the second copies (same Nats-Msg-Id inside the window).
    expect(await streamMessages(doomed.streams.events.name)).toBe(before);
  });

  it('keeps one entry per event when a republish falls outside the duplicate window', async () => {
    const extra = { EVENTS_NAMESPACE: uniqueNamespace('window'), EVENTS_DUPLICATE_WINDOW_MS: '1000' };
    const writer = await start({ relay: false, writer: true }, extra);
    let crashed!: () => void;
    const died = new Promise<void>((r) => (crashed = r));
    const doomed = await start({ relay: false, writer: false }, extra);
    const from = committed.length;
    await produce(ds, tenantId, vault, 10, { committed, rolledBack });
    const mine = committed.slice(from);
    await doomed.relay.start(() => {
      crashed();
      throw new Error('relay died before marking');
    });
    await died;
    await doomed.close();
    // NATS forgets a message id on a timer after the window (later under load): republish the
    // stream's last message, as the relay would, until NATS takes it as new. Every id published
    // before it is then forgotten too; the relay's republish of that one message is dropped, so
    // the stream still ends with both copies of each event.
    await republishWhenForgotten(writer.streams.events.name);
    await start({ relay: true, writer: false }, extra);
    // the entries exist since the first copies: wait for the relay to have published the second ones
    await waitFor(
      async () =>
        (await ds.query(`SELECT count(*)::int AS n FROM outbox_events WHERE id = ANY($1) AND published_at IS NULL`, [mine]))[0]
          .n === 0,
      10_000,
      'the relay to publish the events again',
    );
    await expectExactlyOnce(ds, committed, rolledBack);
    // Both copies reached the stream (the window had passed): the writer deduplicated.
    expect(await streamMessages(writer.streams.events.name)).toBe(20);
    await waitFor(async () => writer.writer.processed >= 20, 10_000, 'the duplicates to be acknowledged');
    await deleteNamespaceStreams(nats.url, [writer.streams.events.name, writer.streams.deadLetterStream]);
  });

  it('shares the outbox between several relays without publishing an event twice', async () => {
    const extra = { EVENTS_NAMESPACE: uniqueNamespace('relays'), EVENTS_DUPLICATE_WINDOW_MS: '1000' };
    await produce(ds, tenantId, vault, 300, { committed, rolledBack });
    const relays = [
      await start({ relay: true, writer: false }, { ...extra, OUTBOX_RELAY_BATCH_SIZE: '20' }),
      await start({ relay: true, writer: false }, { ...extra, OUTBOX_RELAY_BATCH_SIZE: '20' }),
      await start({ relay: true, writer: true }, { ...extra, OUTBOX_RELAY_BATCH_SIZE: '20' }),
    ];
    await expectExactlyOnce(ds, committed, rolledBack);
    // SKIP LOCKED: each row was claimed by one relay only, even with a 1 s duplicate window.
    expect(await streamMessages(relays[0].streams.events.name)).toBe(300);
    expect(relays.filter((r) => r.relay.published > 0).length).toBeGreaterThan(1);
    await deleteNamespaceStreams(nats.url, [relays[0].streams.events.name, relays[0].streams.deadLetterStream]);
  });

  it('dead-letters an event whose payload does not match its contract class, and goes on', async () => {
    const w = await start({ relay: true, writer: true });
    const bad = await operation(ds, SUBJECTS.recordCreated, {
      tenantId,
      vault,
      occurredAt: new Date().toISOString(),
      record: { id: 'not-a-uuid', name: 'No actor' },
    } as unknown as VaultEventBase);
    await produce(ds, tenantId, vault, 5, { committed, rolledBack });
    await expectExactlyOnce(ds, committed, [...rolledBack, bad]);
    await waitFor(async () => w.writer.deadLettered === 1, 10_000, 'the dead letter');
    const nc = await connect({ servers: nats.url });
    const jsm = await jetstreamManager(nc);
    const dlq = w.streams.deadLetterStream;
    const info = await jsm.streams.info(dlq);
    const msg = await jsm.streams.getMessage(dlq, { seq: info.state.first_seq });
    await nc.close();
    expect(info.state.messages).toBe(1);
    expect(msg?.header.get('Dead-Letter-Reason')).toMatch(/invalid/);
    expect(msg?.header.get('Dead-Letter-Subject')).toBe(`${env['EVENTS_NAMESPACE']}.${SUBJECTS.recordCreated}`);
  });

  it('deletes published outbox rows past the retention, never unpublished ones', async () => {
    const w = await start({ relay: false, writer: false }, { OUTBOX_RETENTION_MINUTES: '0' });
    await produce(ds, tenantId, vault, 5, { committed, rolledBack });
    const count = async (where: string) =>
      (await ds.query(`SELECT count(*)::int AS n FROM outbox_events WHERE ${where}`))[0].n as number;
    const published = await count('published_at IS NOT NULL');
    expect(published).toBeGreaterThan(0);
    await w.relay.start();
    await waitFor(async () => (await count('true')) === 0, 10_000, 'the outbox to be pruned');
    await w.close();
    const keeper = await start({ relay: true, writer: true });
    await produce(ds, tenantId, vault, 5, { committed, rolledBack });
    await expectExactlyOnce(ds, committed, rolledBack);
    expect(await keeper.relay.prune()).toBe(0); // 7 days by default: nothing is old enough
    expect(await count('true')).toBe(5);
  });

  it('logs a transfer in both vaults, once each', async () => {
    await start({ relay: true, writer: true });
    const destination = { id: randomUUID(), name: 'Work' };
    const id = await operation(ds, SUBJECTS.recordTransferred, {
      ...recordEvent(tenantId, vault, 'Passport'),
      destinationVault: destination,
    } as unknown as VaultEventBase);
    await waitFor(async () => (await entryCounts(ds)).get(id) === 2, 10_000, 'both transfer entries');
    const rows: { vault_id: string; action: string }[] = await ds.query(
      `SELECT vault_id, action FROM activity_log_entries WHERE event_id = $1 ORDER BY action`,
      [id],
    );
    expect(rows).toEqual([
      { vault_id: destination.id, action: 'transferredIn' },
      { vault_id: vault.id, action: 'transferredOut' },
    ]);
    await deleteNamespaceStreams(nats.url, [workers[0].streams.events.name, workers[0].streams.deadLetterStream]);
  });
});
