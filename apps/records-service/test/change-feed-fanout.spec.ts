import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { PLAN_MAX_AGE_MS } from '@vault/platform/persistence';
import { TestNatsServer } from '@vault/platform/testing';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { ChangeFeedEnv } from '../src/features/change-feed/change-feed.env';
import { FeedSignal } from '../src/features/change-feed/feed-signal';
import { FeedReadConnection, VaultFeedReaders } from '../src/features/change-feed/vault-feed-readers';
import { ChangeFeedRepository } from '../src/persistence/change-feed/change-feed.repository';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { SseClient } from './sse-client';
import request from 'supertest';
import { Caller, recordBody, RecordsTestApp } from './support';

/**
 * The live change feed shared by many streams: each instance reads a vault's new events
 * once for all its streams, woken by its own writer or by the NOTIFY of the instance that
 * wrote them. The streams poll once a minute here, so an event arriving within seconds
 * came through a signal, not a poll.
 */
describe('change feed streams fanned out per vault (real NATS and PostgreSQL, two instances)', () => {
  jest.setTimeout(120_000);
  let nats: TestNatsServer;
  let t: RecordsTestApp;
  let second: INestApplication;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    const env = {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('feedfan'),
      OUTBOX_RELAY_POLL_MS: '100',
      ACTIVITY_LOG_RELAY: 'inline',
      CHANGE_FEED_POLL_MS: '60000',
      CHANGE_FEED_STREAM_BUFFER_BYTES: '65536',
    };
    t = await RecordsTestApp.start('records_change_feed_fanout', env);
    await startJetStreamConsumers(t.app);
    // Another instance on the same database that does not write the feed.
    second = await t.bootInstance({ CHANGE_FEED_WRITER: 'off', ACTIVITY_LOG_WRITER: 'off', WEBHOOK_DISPATCHER: 'off' });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await second?.close();
    await t?.stop();
    await nats?.dispose();
  });

  const feedPath = (vaultId: string) => `/vault/vault-id/${vaultId}/events`;
  const stream = async (app: INestApplication, c: Caller, vaultId: string, lastEventId?: string) => {
    const s = await SseClient.open(app, feedPath(vaultId), {
      authorization: `Bearer ${c.token}`,
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    });
    clients.push(s);
    expect(s.status).toBe(200);
    return s;
  };
  const feedIds = async (vaultId: string) =>
    (await t.sql<{ event_id: string }>(`SELECT event_id FROM vault_feed WHERE vault_id = $1 ORDER BY seq`, [vaultId])).map(
      (r) => r.event_id,
    );
  const feedHolds = (vaultId: string, n: number) =>
    waitFor(async () => (await feedIds(vaultId)).length >= n, 30_000, `${n} feed events`);

  it('sends an event to the streams of both instances promptly, whichever instance it was written through', async () => {
    const owner = await t.caller();
    const viewer = await t.caller();
    const vault = await t.createVault(owner);
    await t.grantVaultRole(vault, viewer, 'vault_viewer');
    await feedHolds(vault, 1);
    const streams = [
      await stream(t.app, owner, vault),
      await stream(t.app, viewer, vault),
      await stream(second, owner, vault),
      await stream(second, viewer, vault),
      await stream(second, owner, vault),
    ];
    for (const s of streams) await s.until((c) => c.events.length === 1, 'the existing event');

    const created = await request(second.getHttpServer())
      .post(`/api/v1/vault/vault-id/${vault}/records`)
      .set('Authorization', `Bearer ${owner.token}`)
      .send(recordBody({ name: 'Through the second' }))
      .expect(200);
    const viaSecond = created.body.id as string;
    for (const s of streams) await s.until((c) => c.events.length === 2, 'the event written through the second instance', 20_000);
    const viaFirst = await t.createRecord(owner, vault, { name: 'Through the first' });
    for (const s of streams) await s.until((c) => c.events.length === 3, 'the event written through the first instance', 20_000);

    const ids = await feedIds(vault);
    for (const s of streams) {
      expect(s.events.map((e) => e.data.id)).toEqual(ids);
      expect(s.events.slice(1).map((e) => e.data.data.record.id)).toEqual([viaSecond, viaFirst]);
    }
    // the ids are cursors of the same positions on both instances
    expect(streams[4].events.map((e) => e.id)).toEqual(streams[0].events.map((e) => e.id));
  });

  it('wakes the writing instance once per feed write (its own NOTIFY is skipped) and the other instance by the NOTIFY', async () => {
    const signal = t.app.get(FeedSignal);
    const [here, there] = [t.app.get(VaultFeedReaders), second.get(VaultFeedReaders)];
    const written = (n: number) =>
      waitFor(async () => signal.signalled.written >= n, 30_000, `the writer's signal of ${n} vaults`);
    // PostgreSQL delivers notifications in commit order: once the writing instance has one sent
    // now (naming no vault of the test), it has every notification committed before
    const notificationsIn = async () => {
      const seen = signal.signalled.notified;
      await t.sql(`SELECT pg_notify('vault_feed', $1)`, [randomUUID()]);
      await waitFor(async () => signal.signalled.notified > seen, 30_000, 'the notifications committed so far');
    };
    const before = signal.signalled.written;
    const owner = await t.caller();
    const vault = await t.createVault(owner);
    await feedHolds(vault, 1);
    await written(before + 1); // the vault's first event has woken this instance before its streams open
    const streams = [await stream(t.app, owner, vault), await stream(second, owner, vault)];
    for (const s of streams) await s.until((c) => c.events.length === 1, 'the existing event');
    await notificationsIn();
    const [wakesHere, wakesThere, skipped] = [
      here.signalledWakes(vault),
      there.signalledWakes(vault),
      signal.signalled.ownSkipped,
    ];

    await t.createRecord(owner, vault, { name: 'One write' });
    for (const s of streams) await s.until((c) => c.events.length === 2, 'the new event', 20_000);
    await written(before + 2);
    await notificationsIn();
    // the write's own NOTIFY came back to the writing instance and was skipped: one wake-up there, by its writer
    expect(signal.signalled.ownSkipped).toBe(skipped + 1);
    expect(here.signalledWakes(vault)).toBe(wakesHere + 1);
    // the other instance was woken by the NOTIFY (its poll is a minute away) and skips nothing
    expect(there.signalledWakes(vault)).toBeGreaterThan(wakesThere);
    expect(second.get(FeedSignal).signalled.ownSkipped).toBe(0);
  });

  it('stops a viewer whose role is removed mid-stream, while the other streams go on', async () => {
    const owner = await t.caller();
    const [viewer, guest] = [await t.caller(), await t.caller()];
    const vault = await t.createVault(owner);
    const shared = await t.createRecord(owner, vault, { name: 'Shared' });
    await t.grantVaultRole(vault, viewer, 'vault_viewer');
    await t.grantRecordRole(shared, guest, 'rec_viewer');
    await feedHolds(vault, 2);
    const ownerStream = await stream(second, owner, vault);
    const viewerStream = await stream(second, viewer, vault);
    const guestStream = await stream(second, guest, vault);
    await ownerStream.until((c) => c.events.length === 2, 'the existing events');
    await viewerStream.until((c) => c.events.length === 2, "the viewer's events");
    await guestStream.until((c) => c.events.length === 1, "the guest's record event");

    // the owner removes the viewer through the API (a collaborator.deleted event)
    const [{ id }] = await t.sql<{ id: string }>(`SELECT id FROM vault_memberships WHERE vault_id = $1 AND open_id = $2`, [
      vault,
      viewer.openId,
    ]);
    await t.delete(owner, `/vault/vault-id/${vault}/collaborators/collaborator-id/${id}`).expect(200);
    await viewerStream.until((c) => c.ended, "the end of the viewer's stream", 20_000);
    expect(viewerStream.events).toHaveLength(2);

    await t.put(owner, `/vault/vault-id/${vault}/records/record-id/${shared}`, recordBody({ name: 'Shared 2' })).expect(200);
    const other = await t.createRecord(owner, vault, { name: 'Not shared' });
    await ownerStream.until((c) => c.events.some((e) => e.data.data.record?.id === other), 'the later record', 20_000);
    expect(ownerStream.events.map((e) => e.data.id)).toEqual(await feedIds(vault));
    expect(ownerStream.events.map((e) => e.event)).toContain('collaborator.deleted');
    // the guest still sees its record's events only
    expect(guestStream.ended).toBe(false);
    expect(guestStream.events.every((e) => e.data.data.record?.id === shared)).toBe(true);
    expect(viewerStream.events).toHaveLength(2);
  });

  it('reads the vaults woken together in one statement, each stream getting its own vault and view only', async () => {
    const [a, b] = [await t.caller(), await t.caller()];
    const guest = await t.caller();
    const [vaultA, vaultB] = [await t.createVault(a), await t.createVault(b)];
    const sharedB = await t.createRecord(b, vaultB, { name: 'Shared B' });
    await t.grantRecordRole(sharedB, guest, 'rec_viewer');
    await feedHolds(vaultA, 1);
    await feedHolds(vaultB, 2);
    const streamA = await stream(t.app, a, vaultA);
    const streamB = await stream(t.app, b, vaultB);
    const guestB = await stream(t.app, guest, vaultB);
    await streamA.until((c) => c.events.length === 1, 'vault A so far');
    await streamB.until((c) => c.events.length === 2, 'vault B so far');
    await guestB.until((c) => c.events.length === 1, "the guest's record so far");

    // writes to both vaults at once: the writer's batches wake both readers together
    const written = await Promise.all([
      ...[1, 2, 3].map((i) => t.createRecord(a, vaultA, { name: `A ${i}` })),
      ...[1, 2, 3].map((i) => t.put(b, `/vault/vault-id/${vaultB}/records/record-id/${sharedB}`, recordBody({ name: `B ${i}` }))),
      t.createRecord(b, vaultB, { name: 'Not shared' }),
    ]);
    expect(written).toHaveLength(7);
    await streamA.until((c) => c.events.length === 4, 'vault A', 20_000);
    await streamB.until((c) => c.events.length === 6, 'vault B', 20_000);
    await guestB.until((c) => c.events.length === 4, "the guest's record", 20_000);
    expect(streamA.events.map((e) => e.data.id)).toEqual(await feedIds(vaultA));
    expect(streamB.events.map((e) => e.data.id)).toEqual(await feedIds(vaultB));
    expect(guestB.events.every((e) => e.data.data.record?.id === sharedB)).toBe(true);

    // a signal naming both vaults: their readers read in one statement
    const repo = t.app.get(ChangeFeedRepository);
    const reads = jest.spyOn(repo, 'eventsAndViewsOf');
    try {
      t.app.get(FeedSignal).written([vaultA, vaultB]);
      await waitFor(async () => reads.mock.calls.length > 0, 5000, 'a read');
      const both = reads.mock.calls.filter(([r]) => r.some((x) => x.vaultId === vaultA) && r.some((x) => x.vaultId === vaultB));
      expect(both).toHaveLength(1);
      expect(reads.mock.calls.some(([r]) => r.length === 1 && [vaultA, vaultB].includes(r[0].vaultId))).toBe(false);
    } finally {
      reads.mockRestore();
    }
  });

  it('closes a stream whose client falls behind; the client resumes with Last-Event-ID, the others are not held back', async () => {
    const owner = await t.caller();
    const vault = await t.createVault(owner);
    await feedHolds(vault, 1);
    const slow = await stream(t.app, owner, vault);
    const fast = await stream(t.app, owner, vault);
    for (const s of [slow, fast]) await s.until((c) => c.events.length === 1, 'the existing event');
    slow.pause();

    // 40 large events (256 KiB each, 10 MiB in all: more than the sockets hold) join the feed
    const pad = 'x'.repeat(256 * 1024);
    for (let i = 0; i < 40; i++) {
      const id = randomUUID();
      const envelope = {
        specversion: '1.0',
        id,
        source: `/vault/vault-id/${vault}`,
        type: 'vault.updated',
        vaultid: vault,
        data: { pad },
      };
      await t.sql(
        `INSERT INTO vault_feed (event_id, vault_id, record_id, type, envelope, occurred_at) VALUES ($1, $2, NULL, 'vault.updated', $3, now())`,
        [id, vault, JSON.stringify(envelope)],
      );
    }
    // a record event wakes the reader, which hands all of them to both streams
    await t.createRecord(owner, vault, { name: 'After the large ones' });
    await fast.until((c) => c.events.length === 42, 'every event on the fast stream', 30_000);
    // the next events find the slow stream still holding more than its buffer: it is closed
    await t.createRecord(owner, vault, { name: 'Later' });
    await fast.until((c) => c.events.length === 43, 'the later event on the fast stream', 20_000);
    slow.resume();
    await slow.until((c) => c.ended, 'the slow stream to be closed', 20_000);
    expect(slow.events.length).toBeLessThan(43);

    const ids = await feedIds(vault);
    expect(fast.events.map((e) => e.data.id)).toEqual(ids);
    expect(slow.events.map((e) => e.data.id)).toEqual(ids.slice(0, slow.events.length));
    const resumed = await stream(t.app, owner, vault, slow.events.at(-1)?.id);
    await resumed.until((c) => c.events.length === ids.length - slow.events.length, 'the rest of the feed', 30_000);
    expect([...slow.events, ...resumed.events].map((e) => e.data.id)).toEqual(ids);
  });
  it("reads through the readers' own connection, through the pool while it cannot be opened, and reopens it after a failure", async () => {
    const own = t.app.get(VaultFeedReaders).connection;
    const pool = t.app.get(ChangeFeedRepository).poolQuery;
    // the streams of the tests above were served through it
    expect(own.counts.own).toBeGreaterThan(0);
    const before = { ...own.counts };
    await expect(own.query('SELECT 1/0', [], pool)).rejects.toThrow(/division by zero/);
    await expect(own.query('SELECT 2 AS two', [], pool)).resolves.toEqual([{ two: 2 }]);
    expect(own.counts).toEqual({ own: before.own + 2, pool: before.pool });

    const down = new FeedReadConnection('postgres://postgres@127.0.0.1:1/nowhere');
    await expect(down.query('SELECT 1 AS one', [], pool)).resolves.toEqual([{ one: 1 }]);
    expect(down.counts).toEqual({ own: 0, pool: 1 });
    await down.close();
  });

  it('drops the plans of its own connection once they are older than PLAN_MAX_AGE_MS, as the pool does', async () => {
    let clock = 0;
    const own = new FeedReadConnection(t.app.get(ChangeFeedEnv).DATABASE_URL, () => clock);
    const pool = t.app.get(ChangeFeedRepository).poolQuery;
    const id = randomUUID();
    const lookup = async () => {
      for (let i = 0; i < 8; i++) await own.query('SELECT n FROM plan_probe WHERE id = $1', [id], pool, 'plan_probe');
    };
    const plan = async () =>
      ((await own.query(`EXPLAIN EXECUTE plan_probe('${id}')`, [], pool)) as { 'QUERY PLAN': string }[])
        .map((r) => r['QUERY PLAN'])
        .join('\n');
    try {
      await own.query(
        'CREATE TABLE plan_probe (id uuid PRIMARY KEY, n int NOT NULL) WITH (autovacuum_enabled = false)',
        [],
        pool,
      );
      await own.query('INSERT INTO plan_probe SELECT gen_random_uuid(), i FROM generate_series(1, 6) i', [], pool);
      await own.query('ANALYZE plan_probe', [], pool);
      await lookup();
      // the generic plan made for six rows
      expect(await plan()).toMatch(/Seq Scan/);
      await own.query('INSERT INTO plan_probe SELECT gen_random_uuid(), i FROM generate_series(1, 20000) i', [], pool);
      clock += PLAN_MAX_AGE_MS - 1;
      await lookup();
      expect(await plan()).toMatch(/Seq Scan/);
      clock += 1;
      await lookup();
      expect(await plan()).toContain('Index Cond: (id = $1)');
      expect(own.counts.pool).toBe(0);
    } finally {
      await own.query('DROP TABLE IF EXISTS plan_probe', [], pool);
      await own.close();
    }
  });
});
