import { jetstreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { NATS_CONNECTION } from '@vault/platform/events';
import { TestNatsServer } from '@vault/platform/testing';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { ChangeFeedEnv } from '../src/features/change-feed/change-feed.env';
import { ChangeFeedService } from '../src/features/change-feed/change-feed.service';
import { CHANGE_FEED_CONSUMER } from '../src/features/change-feed/change-feed.writer';
import { EventStreams } from '../src/capabilities/events/event-streams';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { SseClient } from './sse-client';
import { Caller, recordBody, RecordsTestApp } from './support';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- CloudEvents are read field by field
type CloudEvent = Record<string, any>;
interface Page {
  data: CloudEvent[];
  nextCursor: string;
  hasMore: boolean;
}

describe('vault change feed (real NATS and PostgreSQL)', () => {
  jest.setTimeout(120_000);
  /** The writer's ack wait in this suite (not the 30 s default). */
  const ACK_WAIT_MS = 45_000;
  let nats: TestNatsServer;
  let t: RecordsTestApp;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    const env = {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('feed'),
      OUTBOX_RELAY_POLL_MS: '100',
      ACTIVITY_LOG_RELAY: 'inline',
      CHANGE_FEED_POLL_MS: '100',
      CHANGE_FEED_HEARTBEAT_MS: '300',
      CHANGE_FEED_ACK_WAIT_MS: String(ACK_WAIT_MS),
    };
    t = await RecordsTestApp.start('records_change_feed', env);
    // The feed writer runs on the service's JetStream transport (as main.ts connects it).
    await startJetStreamConsumers(t.app);
  });
  afterAll(async () => {
    await t?.stop();
    await nats?.dispose();
  });

  const feedPath = (vaultId: string, query = '') => `/vault/vault-id/${vaultId}/events${query}`;
  const page = async (c: Caller, vaultId: string, query = '') =>
    (await t.get(c, feedPath(vaultId, query)).expect(200)).body as Page;
  const stored = (vaultId: string) =>
    t.sql<{ event_id: string; type: string }>(`SELECT event_id, type FROM vault_feed WHERE vault_id = $1 ORDER BY seq`, [
      vaultId,
    ]);
  /** Waits until the vault's feed holds `n` events, answered by the API in full. */
  const settled = async (c: Caller, vaultId: string, n: number): Promise<CloudEvent[]> => {
    await waitFor(async () => (await stored(vaultId)).length >= n, 30_000, `${n} feed events of ${vaultId}`);
    return (await page(c, vaultId, '?limit=500')).data;
  };
  const renameRecord = (c: Caller, vaultId: string, recordId: string, name: string) =>
    t.put(c, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`, recordBody({ name })).expect(200);

  it('pages the events in stream order from the oldest, with cursors and hasMore', async () => {
    const owner = await t.caller();
    const vault = await t.createVault(owner, { name: 'Family papers' });
    for (const name of ['Passport', 'Deed', 'Will']) await t.createRecord(owner, vault, { name });
    const all = await settled(owner, vault, 4);

    expect(all.map((e) => e.type)).toEqual(['vault.created', 'record.created', 'record.created', 'record.created']);
    expect(all.slice(1).map((e) => e.data.record.name)).toEqual(['Passport', 'Deed', 'Will']);
    expect(all.map((e) => e.id)).toEqual((await stored(vault)).map((r) => r.event_id));
    expect(all[0]).toMatchObject({
      specversion: '1.0',
      source: `/vault/vault-id/${vault}`,
      datacontenttype: 'application/json',
      vaultid: vault,
      data: { vault: { id: vault, name: 'Family papers' } },
    });

    const first = await page(owner, vault, '?limit=3');
    expect(first.data.map((e) => e.id)).toEqual(all.slice(0, 3).map((e) => e.id));
    expect(first.hasMore).toBe(true);
    const second = await page(owner, vault, `?limit=3&cursor=${first.nextCursor}`);
    expect(second.data.map((e) => e.id)).toEqual([all[3].id]);
    expect(second.hasMore).toBe(false);
    const caughtUp = await page(owner, vault, `?cursor=${second.nextCursor}`);
    expect(caughtUp).toEqual({ data: [], nextCursor: second.nextCursor, hasMore: false });

    // a later change is found from the cursor the client kept
    const recordId = all[1].data.record.id as string;
    await renameRecord(owner, vault, recordId, 'Passport (renewed)');
    await settled(owner, vault, 5);
    const later = await page(owner, vault, `?cursor=${second.nextCursor}`);
    expect(later.data.map((e) => [e.type, e.data.record.id])).toEqual([['record.updated', recordId]]);
  });

  it('declares the records-change-feed consumer with CHANGE_FEED_ACK_WAIT_MS as its ack wait', async () => {
    const jsm = await jetstreamManager(t.app.get<NatsConnection>(NATS_CONNECTION));
    const stream = new EventStreams(t.app.get(ChangeFeedEnv)).events.name;
    const info = () => jsm.consumers.info(stream, CHANGE_FEED_CONSUMER.durable);
    // the transport declares its consumers in the background
    await waitFor(async () => (await info().catch(() => null)) !== null, 30_000, 'the records-change-feed consumer');
    expect((await info()).config.ack_wait).toBe(nanos(ACK_WAIT_MS));
  });

  it('lists a record transfer in the feeds of both vaults, once per vault', async () => {
    const owner = await t.caller();
    const home = await t.createVault(owner);
    const office = await t.createVault(owner);
    const record = await t.createRecord(owner, home, { name: 'Contract' });
    await t
      .put(owner, `/vault/vault-id/${home}/records/record-id/${record}/transfer`, { destinationVaultId: office })
      .expect(200);
    const [inHome, inOffice] = [await settled(owner, home, 3), await settled(owner, office, 2)];
    const moved = inHome.at(-1);
    expect(moved).toMatchObject({
      type: 'record.transferred',
      data: { record: { id: record }, destinationVault: { id: office } },
    });
    expect(inOffice.at(-1)).toEqual(moved);
    expect(inOffice.map((e) => e.type)).toEqual(['vault.created', 'record.transferred']);
  });

  it('refuses a malformed cursor or limit with a 400 problem', async () => {
    const owner = await t.caller();
    const vault = await t.createVault(owner);
    const cases: [string, string][] = [
      ['?cursor=not%20a%20cursor', 'cursor'],
      [`?cursor=${Buffer.from('f1:12x').toString('base64url')}`, 'cursor'],
      [`?cursor=${Buffer.from('f1:99999999999999999999').toString('base64url')}`, 'cursor'],
      ['?cursor=a&cursor=b', 'cursor'],
      ['?limit=0', 'limit'],
      ['?limit=501', 'limit'],
      ['?limit=ten', 'limit'],
    ];
    for (const [query, field] of cases) {
      const res = await t.get(owner, feedPath(vault, query)).expect(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
  });

  it('shows members every event, a record guest only its records, and nobody else anything', async () => {
    const owner = await t.caller();
    const [editor, viewer, guest, stranger] = await Promise.all([t.caller(), t.caller(), t.caller(), t.caller()]);
    const outsider = await t.caller('tenant-b');
    const vault = await t.createVault(owner);
    const shared = await t.createRecord(owner, vault, { name: 'Shared' });
    const other = await t.createRecord(owner, vault, { name: 'Private' });
    await t.grantVaultRole(vault, editor, 'vault_editor');
    await t.grantVaultRole(vault, viewer, 'vault_viewer');
    await t.grantRecordRole(shared, guest, 'rec_viewer');
    await renameRecord(owner, vault, other, 'Private 2');
    await renameRecord(owner, vault, shared, 'Shared 2');
    const all = await settled(owner, vault, 5);
    expect(all).toHaveLength(5);

    for (const member of [editor, viewer]) expect((await page(member, vault, '?limit=500')).data).toEqual(all);
    const guestSees = (await page(guest, vault)).data;
    expect(guestSees.map((e) => [e.type, e.data.record.id])).toEqual([
      ['record.created', shared],
      ['record.updated', shared],
    ]);
    for (const nobody of [stranger, outsider]) {
      const res = await t.get(nobody, feedPath(vault)).expect(404);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    await t
      .http()
      .get(`/api/v1${feedPath(vault)}`)
      .expect(401);

    // visibility is the caller's role when the page is read
    await t.sql(`DELETE FROM record_memberships WHERE record_id = $1 AND open_id = $2`, [shared, guest.openId]);
    await t.get(guest, feedPath(vault)).expect(404);
  });

  it('streams events live as Server-Sent Events whose ids are cursors, with heartbeats', async () => {
    const owner = await t.caller();
    const vault = await t.createVault(owner);
    await settled(owner, vault, 1);
    const sse = await SseClient.open(t.app, feedPath(vault), {
      authorization: `Bearer ${owner.token}`,
      accept: 'text/event-stream',
    });
    try {
      expect(sse.status).toBe(200);
      expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(sse.headers['x-accel-buffering']).toBe('no');
      expect(sse.headers['cache-control']).toContain('no-cache');
      await sse.until((c) => c.events.length === 1, 'the existing event');
      expect(sse.events[0].event).toBe('vault.created');

      const record = await t.createRecord(owner, vault, { name: 'Live' });
      await sse.until((c) => c.events.length === 2, 'the live event');
      expect(sse.events[1]).toMatchObject({
        event: 'record.created',
        data: { type: 'record.created', data: { record: { id: record } } },
      });
      // the SSE id is the page cursor of the same event
      const full = await page(owner, vault);
      expect(sse.events.at(-1)?.id).toBe(full.nextCursor);
      expect(sse.events.map((e) => e.data)).toEqual(full.data);
      await sse.until((c) => c.comments.includes('heartbeat'), 'a heartbeat');
    } finally {
      sse.close();
    }
  });

  it('ends a stream once the caller lost access to the vault', async () => {
    const owner = await t.caller();
    const guest = await t.caller();
    const vault = await t.createVault(owner);
    const record = await t.createRecord(owner, vault, { name: 'Shared' });
    await t.grantRecordRole(record, guest, 'rec_viewer');
    await settled(owner, vault, 2);
    const sse = await SseClient.open(t.app, feedPath(vault), {
      authorization: `Bearer ${guest.token}`,
      accept: 'text/event-stream',
    });
    try {
      await sse.until((c) => c.events.length === 1, "the guest's record event");
      expect(sse.events[0].data.data.record.id).toBe(record);
      await t.sql(`DELETE FROM record_memberships WHERE record_id = $1 AND open_id = $2`, [record, guest.openId]);
      await sse.until((c) => c.ended, 'the end of the stream');
      expect(sse.events).toHaveLength(1);
    } finally {
      sse.close();
    }
  });

  it('resumes with Last-Event-ID on another instance of the service without losing or repeating events', async () => {
    const owner = await t.caller();
    const vault = await t.createVault(owner);
    for (const name of ['One', 'Two']) await t.createRecord(owner, vault, { name });
    await settled(owner, vault, 3);
    const headers = { authorization: `Bearer ${owner.token}`, accept: 'text/event-stream' };
    const before = await SseClient.open(t.app, feedPath(vault), headers);
    await before.until((c) => c.events.length === 3, 'the first events');
    before.close();

    // the client is away while changes happen
    for (const name of ['Three', 'Four']) await t.createRecord(owner, vault, { name });
    const all = await settled(owner, vault, 5);

    // another process of the service on the same database (the first one's stream is gone)
    const second = await t.bootInstance({ ACTIVITY_LOG_WRITER: 'off', WEBHOOK_DISPATCHER: 'off' });
    try {
      const after = await SseClient.open(second, feedPath(vault), { ...headers, 'last-event-id': before.events[2].id });
      try {
        await after.until((c) => c.events.length === 2, 'the missed events');
        await t.createRecord(owner, vault, { name: 'Five' });
        await after.until((c) => c.events.length === 3, 'the next live event');
        const seen = [...before.events, ...after.events].map((e) => e.data.id);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.slice(0, 5)).toEqual(all.map((e) => e.id));
        expect(after.events.map((e) => e.data.data.record?.name)).toEqual(['Three', 'Four', 'Five']);
      } finally {
        after.close();
      }
    } finally {
      await second.close();
    }
  });

  it('answers 410 cursor_expired for a cursor before the pruned events, also before streaming', async () => {
    const owner = await t.caller();
    const early = await t.createVault(owner);
    await settled(owner, early, 1);
    const earlyCursor = (await page(owner, early)).nextCursor;
    const vault = await t.createVault(owner);
    await t.createRecord(owner, vault, { name: 'Kept' });
    const events = await settled(owner, vault, 2);
    const lastPrunedCursor = (await page(owner, vault, '?limit=1')).nextCursor;

    // the vault's first event (and every earlier one) passes the retention
    await t.sql(`UPDATE vault_feed SET occurred_at = now() - interval '31 days' WHERE event_id = $1`, [events[0].id]);
    expect(await t.app.get(ChangeFeedService).prune()).toBeGreaterThanOrEqual(2);

    const res = await t.get(owner, feedPath(early, `?cursor=${earlyCursor}`)).expect(410);
    expect(res.body).toMatchObject({ status: 410, code: 'cursor_expired' });
    // the cursor of the last pruned event lost nothing: the feed goes on after it
    expect((await page(owner, vault, `?cursor=${lastPrunedCursor}`)).data.map((e) => e.id)).toEqual([events[1].id]);
    // without a cursor the feed starts at the oldest retained event
    expect((await page(owner, vault)).data.map((e) => e.id)).toEqual([events[1].id]);
    expect((await page(owner, early)).data).toEqual([]);

    const sse = await SseClient.open(t.app, feedPath(early), {
      authorization: `Bearer ${owner.token}`,
      accept: 'text/event-stream',
      'last-event-id': earlyCursor,
    });
    await sse.until((c) => c.ended, 'the refused stream');
    expect(sse.status).toBe(410);
    expect(JSON.parse(sse.body)).toMatchObject({ code: 'cursor_expired' });
  });
});

describe('vault change feed stream woken by its writer (real NATS and PostgreSQL)', () => {
  jest.setTimeout(120_000);
  let nats: TestNatsServer;
  let t: RecordsTestApp;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    t = await RecordsTestApp.start('records_change_feed_wake', {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('feedwake'),
      OUTBOX_RELAY_POLL_MS: '100',
      ACTIVITY_LOG_RELAY: 'inline',
      // A stream polls once a minute here: a live event arriving sooner was woken by the writer.
      CHANGE_FEED_POLL_MS: '60000',
    });
    await startJetStreamConsumers(t.app);
  });
  afterAll(async () => {
    await t?.stop();
    await nats?.dispose();
  });

  it('sends an event to the open streams of its vault as soon as this process has written it', async () => {
    const owner = await t.caller();
    const vault = await t.createVault(owner);
    await waitFor(
      async () => (await t.sql(`SELECT 1 FROM vault_feed WHERE vault_id = $1`, [vault])).length === 1,
      30_000,
      'the first event',
    );
    const headers = { authorization: `Bearer ${owner.token}`, accept: 'text/event-stream' };
    const streams = await Promise.all([1, 2].map(() => SseClient.open(t.app, `/vault/vault-id/${vault}/events`, headers)));
    try {
      for (const s of streams) await s.until((c) => c.events.length === 1, 'the existing event');
      const record = await t.createRecord(owner, vault, { name: 'Woken' });
      for (const s of streams) await s.until((c) => c.events.length === 2, 'the live event', 20_000);
      for (const s of streams)
        expect(s.events[1]).toMatchObject({ event: 'record.created', data: { data: { record: { id: record } } } });
    } finally {
      for (const s of streams) s.close();
    }
  });
});
