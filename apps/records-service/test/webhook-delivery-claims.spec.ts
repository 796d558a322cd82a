import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, type Pool, type PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { FanoutHorizon } from '../src/features/webhooks/fanout-horizon';
import { RunEnds } from '../src/features/webhooks/run-ends';
import { WebhookDispatcher } from '../src/features/webhooks/webhook-dispatcher';
import {
  type ClaimedRun,
  type LeaseTerms,
  type NewDelivery,
  type RunEnd,
  WebhookDeliveryRepository,
} from '../src/persistence/webhooks/webhook-delivery.repository';
import { waitFor } from './activity-log.harness';
import { Caller, RecordsTestApp } from './support';
import { Receiver } from './webhook-receiver';
import { RecordFileRepository } from '../src/persistence/record-files/record-file.repository';

/**
 * The fan-out's insert and the runs it claims in the same statement (real PostgreSQL; no
 * dispatcher runs in this app, so nothing else claims the rows).
 */
describe('webhook deliveries stored by the fan-out, and the runs their insert claims', () => {
  jest.setTimeout(60_000);
  let t: RecordsTestApp;
  let deliveries: WebhookDeliveryRepository;
  const lease: LeaseTerms = { runMax: 4, attemptMs: 3000, slackMs: 10_000 };

  beforeAll(async () => {
    // No claim by the clock during the suite: what is sent is sent because the dispatcher was woken.
    t = await RecordsTestApp.start('records_webhook_claims', { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_POLL_MS: '600000' });
    deliveries = t.app.get(WebhookDeliveryRepository);
  });
  afterAll(async () => {
    await Receiver.closeAll();
    await t?.stop();
  });

  /** A new owner's vault with a subscription; `row(seq)` makes a new delivery of one of its events. */
  async function subscription(url = `http://127.0.0.1:9/${randomUUID()}`) {
    const owner: Caller = await t.caller();
    const vaultId = await t.createVault(owner, { name: `Hooks ${randomUUID().slice(0, 6)}` });
    const res = await t.post(owner, `/vault/vault-id/${vaultId}/webhooks`, { url, events: ['*'] }).expect(201);
    const webhookId = (res.body as { id: string }).id;
    const row = (seq: number): NewDelivery => ({
      id: randomUUID(),
      webhookId,
      vaultId,
      eventId: randomUUID(),
      eventType: 'record.updated',
      streamSeq: String(seq),
      body: JSON.stringify({ vaultid: vaultId, seq }),
    });
    return { vaultId, webhookId, url, row };
  }

  const stateOf = (webhookId: string) =>
    t.sql<{ stream_seq: string; attempts: number; leased: boolean; due: boolean }>(
      `SELECT stream_seq, attempts, leased_until IS NOT NULL AS leased, next_attempt_at <= now() AS due
         FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' ORDER BY stream_seq`,
      [webhookId],
    );

  /** Stores rows as the fan-out does (the floor follows on); answers how many pairs wait for a claim. */
  async function storeAsFanOut(rows: NewDelivery[]): Promise<number> {
    const horizon = t.app.get(FanoutHorizon);
    const seqs = rows.map((r) => Number(r.streamSeq));
    const forClaim = await t.app.get(WebhookDispatcher).store(rows, horizon.reachedWith(seqs));
    horizon.stored(seqs);
    return forClaim;
  }

  it('claims the oldest new events of a pair with nothing pending as one run, up to runMax, leased with the attempt counted; the rest wait', async () => {
    const s = await subscription();
    const rows = [105, 101, 103, 102, 104, 106].map(s.row);
    const { runs, leftRows } = await deliveries.insertDeliveries(rows, { ...lease, upTo: 1000, room: 5 });
    expect(runs).toHaveLength(1);
    expect(runs[0].deliveries.map((d) => d.streamSeq)).toEqual(['101', '102', '103', '104']);
    expect(runs[0].deliveries.map((d) => d.attempts)).toEqual([1, 1, 1, 1]);
    expect(runs[0].deliveries.map((d) => JSON.parse(d.body).seq)).toEqual([101, 102, 103, 104]);
    // the subscription as the claim read it: what sending needs
    const [stored] = await t.sql<{ secret: string; updated_at: Date }>(`SELECT secret, updated_at FROM webhooks WHERE id = $1`, [
      s.webhookId,
    ]);
    expect(runs[0].owner).toMatchObject({ id: s.webhookId, url: s.url, secret: stored.secret, failingSince: null });
    expect(runs[0].owner.updatedAt).toEqual(stored.updated_at);
    expect(leftRows).toHaveLength(2);
    expect(await stateOf(s.webhookId)).toEqual([
      ...['101', '102', '103', '104'].map((seq) => ({ stream_seq: seq, attempts: 1, leased: true, due: false })),
      ...['105', '106'].map((seq) => ({ stream_seq: seq, attempts: 0, leased: false, due: true })),
    ]);
  });

  it('claims nothing for a pair whose earlier event is still pending: the new events wait behind it', async () => {
    const s = await subscription();
    expect((await deliveries.insertDeliveries([s.row(201)], { ...lease, upTo: 1000, room: 0 })).leftRows).toHaveLength(1);
    const { runs, leftRows } = await deliveries.insertDeliveries([s.row(202), s.row(203)], { ...lease, upTo: 1000, room: 5 });
    expect(runs).toEqual([]);
    expect(leftRows).toHaveLength(2);
    expect((await stateOf(s.webhookId)).every((d) => d.attempts === 0 && !d.leased)).toBe(true);
  });

  it('claims only events up to the horizon it is given (an earlier event may still be missing above it)', async () => {
    const s = await subscription();
    const { runs, leftRows } = await deliveries.insertDeliveries([301, 302, 303].map(s.row), { ...lease, upTo: 302, room: 5 });
    expect(runs.map((r) => r.deliveries.map((d) => d.streamSeq))).toEqual([['301', '302']]);
    expect(leftRows).toHaveLength(1);
    // no head at or below the horizon: nothing is claimed
    const other = await subscription();
    expect((await deliveries.insertDeliveries([other.row(305)], { ...lease, upTo: 302, room: 5 })).runs).toEqual([]);
  });

  it('claims runs for at most `room` pairs, the pairs of the oldest events first', async () => {
    const [a, b, c] = [await subscription(), await subscription(), await subscription()];
    const rows = [a.row(403), b.row(401), c.row(402), b.row(404)];
    const { runs, leftRows } = await deliveries.insertDeliveries(rows, { ...lease, upTo: 1000, room: 2 });
    expect(runs.map((r) => [r.owner.id, r.deliveries.map((d) => d.streamSeq)])).toEqual(
      expect.arrayContaining([
        [b.webhookId, ['401', '404']],
        [c.webhookId, ['402']],
      ]),
    );
    expect(runs).toHaveLength(2);
    expect(leftRows).toHaveLength(1);
    expect(await stateOf(a.webhookId)).toEqual([{ stream_seq: '403', attempts: 0, leased: false, due: true }]);
  });

  it('stores a redelivered event once and hands its pair back to a claim: another instance may be storing it', async () => {
    const s = await subscription();
    const first = s.row(501);
    expect((await deliveries.insertDeliveries([first], { ...lease, upTo: 1000, room: 5 })).runs).toHaveLength(1);
    await t.sql(`UPDATE webhook_deliveries SET status = 'delivered', leased_until = NULL WHERE id = $1`, [first.id]);
    const again = { ...first, id: randomUUID() };
    const { runs, leftRows } = await deliveries.insertDeliveries([again, s.row(502)], { ...lease, upTo: 1000, room: 5 });
    expect(runs).toEqual([]);
    expect(leftRows).toHaveLength(1);
    expect(await stateOf(s.webhookId)).toEqual([{ stream_seq: '502', attempts: 0, leased: false, due: true }]);
    const rows = await t.sql<{ id: string; status: string }>(
      `SELECT id, status FROM webhook_deliveries WHERE webhook_id = $1 AND event_id = $2`,
      [s.webhookId, first.eventId],
    );
    expect(rows).toEqual([{ id: first.id, status: 'delivered' }]);
  });

  it('claims no run for a subscription disabled since the fan-out read it', async () => {
    const s = await subscription();
    await t.sql(`UPDATE webhooks SET enabled = false WHERE id = $1`, [s.webhookId]);
    const { runs, leftRows } = await deliveries.insertDeliveries([s.row(601)], { ...lease, upTo: 1000, room: 5 });
    expect(runs).toEqual([]);
    expect(leftRows).toHaveLength(1);
  });

  /** The end of the claimed run of `webhookId` among `runs`, its head delivered (answered `excerpt`). */
  function runEnd(runs: ClaimedRun[], webhookId: string, excerpt: string | null = null): RunEnd {
    const {
      owner,
      deliveries: [head],
    } = runs.find((r) => r.owner.id === webhookId) as ClaimedRun;
    const outcome = { status: 'delivered' as const, statusCode: 204, error: null, excerpt, nextAttemptAt: null, agoMs: 0 };
    return {
      delivered: [{ id: head.id, outcome }],
      webhookId,
      vaultId: head.vaultId,
      afterSeq: head.streamSeq,
      webhookReadAt: owner.updatedAt,
    };
  }

  it("stores the ends of several runs in one statement, each with its pair's next run or whether a claim may find more", async () => {
    const [a, b, c] = [await subscription(), await subscription(), await subscription()];
    const claimHeads = { ...lease, runMax: 1, upTo: 1000, room: 5 };
    const heads = (await deliveries.insertDeliveries([a.row(701), a.row(702), b.row(701), c.row(701)], claimHeads)).runs;
    // c's next event is above the horizon the ends are stored with
    await deliveries.insertDeliveries([c.row(950)], { ...claimHeads, room: 0 });
    const endOf = (webhookId: string) => runEnd(heads, webhookId);
    const continued = await deliveries.recordAndContinue([endOf(a.webhookId), endOf(b.webhookId), endOf(c.webhookId)], {
      ...lease,
      horizon: 900,
    });
    expect(continued.map((n) => ({ next: n.run.map((d) => d.streamSeq), more: n.more }))).toEqual([
      { next: ['702'], more: false },
      { next: [], more: false },
      { next: [], more: true },
    ]);
    for (const x of [a, b, c]) {
      const [head] = await t.sql<{ status: string }>(
        `SELECT status FROM webhook_deliveries WHERE webhook_id = $1 AND stream_seq = 701`,
        [x.webhookId],
      );
      expect(head.status).toBe('delivered');
    }
    expect(await stateOf(a.webhookId)).toEqual([{ stream_seq: '702', attempts: 1, leased: true, due: false }]);
  });

  it("keeps one plan for the fan-out's read of files, its insert and the ends of runs: planned at their first executions, not at every batch", async () => {
    const s = await subscription();
    const files = t.app.get(RecordFileRepository);
    for (let k = 0; k < 16; k++) {
      await files.listOfRecords([randomUUID(), randomUUID()]);
      const { runs } = await deliveries.insertDeliveries([s.row(3000 + k)], { ...lease, runMax: 1, upTo: 100_000, room: 5 });
      await deliveries.recordAndContinue([runEnd(runs, s.webhookId)], { ...lease, horizon: 100_000 });
    }
    expect(await stateOf(s.webhookId)).toEqual([]);
    const STATEMENTS = ['record_files_of_records', 'webhook_deliveries_insert', 'webhook_deliveries_end_and_continue'];
    // Each connection of the pool that ran them: PostgreSQL plans a named statement for its first
    // five executions, then keeps the generic plan unless the custom ones look cheaper.
    const pool = (t.app.get(DataSource).driver as unknown as { master: Pool }).master;
    await waitFor(async () => pool.idleCount === pool.totalCount, 10_000, 'every connection of the pool idle');
    const clients: PoolClient[] = [];
    for (let i = pool.totalCount; i > 0; i--) clients.push(await pool.connect());
    const plans: { name: string; custom: number; generic: number }[] = [];
    try {
      for (const c of clients) {
        const { rows } = await c.query<{ name: string; custom: string; generic: string }>(
          `SELECT name, custom_plans AS custom, generic_plans AS generic FROM pg_prepared_statements WHERE name = ANY($1)`,
          [STATEMENTS],
        );
        plans.push(...rows.map((r) => ({ name: r.name, custom: Number(r.custom), generic: Number(r.generic) })));
      }
    } finally {
      clients.forEach((c) => c.release());
    }
    for (const name of STATEMENTS) {
      const held = plans.filter((p) => p.name === name);
      expect(held.reduce((n, p) => n + p.custom + p.generic, 0)).toBeGreaterThanOrEqual(16);
      // at most five custom plans on each connection: every later execution on the generic plan
      expect(held.filter((p) => p.custom > 5)).toEqual([]);
      expect(held.reduce((n, p) => n + p.generic, 0)).toBeGreaterThan(0);
    }
  });

  it("stores the other runs' ends of a group whose statement fails, each on its own", async () => {
    const [a, b, c] = [await subscription(), await subscription(), await subscription()];
    const runs = (await deliveries.insertDeliveries([a.row(801), b.row(801), c.row(801)], { ...lease, upTo: 1000, room: 5 }))
      .runs;
    const ends = new RunEnds(deliveries, () => ({ ...lease, horizon: 1000 }));
    // a's end goes alone; b's and c's wait for it and go together, c's with an answer PostgreSQL refuses
    const first = ends.store(runEnd(runs, a.webhookId));
    const second = ends.store(runEnd(runs, b.webhookId));
    const third = ends.store(runEnd(runs, c.webhookId, 'a\u0000b'));
    await expect(first).resolves.toEqual({ run: [], more: false });
    await expect(second).resolves.toEqual({ run: [], more: false });
    await expect(third).rejects.toThrow();
    const status = async (x: { webhookId: string }) =>
      (await t.sql<{ status: string }>(`SELECT status FROM webhook_deliveries WHERE webhook_id = $1`, [x.webhookId]))[0].status;
    expect([await status(a), await status(b), await status(c)]).toEqual(['delivered', 'delivered', 'pending']);
  });

  it('stores an answer with a NUL in it, the NUL as U+FFFD', async () => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('a\u0000b'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const s = await subscription(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
      const dispatcher = t.app.get(WebhookDispatcher);
      const horizon = t.app.get(FanoutHorizon);
      await dispatcher.start();
      const seq = horizon.known + 1;
      expect(await storeAsFanOut([s.row(seq)])).toBe(0);
      const row = async () =>
        (
          await t.sql<{ status: string; last_response_excerpt: string }>(
            `SELECT status, last_response_excerpt FROM webhook_deliveries WHERE webhook_id = $1`,
            [s.webhookId],
          )
        )[0];
      await waitFor(async () => (await row()).status === 'delivered', 10_000, 'the event delivered');
      expect((await row()).last_response_excerpt).toBe('a\uFFFDb');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("sends events stored while their vault's run was being recorded once that run ends, without waiting for the clock", async () => {
    const receiver = new Receiver('127.0.0.1');
    let hold = true;
    const held: (() => void)[] = [];
    receiver.beforeAnswer = () => (hold ? new Promise<void>((r) => held.push(r)) : Promise.resolve());
    await receiver.listen();
    const s = await subscription(receiver.url);
    const dispatcher = t.app.get(WebhookDispatcher);
    // the earlier cases' deliveries are not the dispatcher's to send here
    await t.sql(`UPDATE webhook_deliveries SET status = 'failed', leased_until = NULL WHERE status = 'pending'`);
    await dispatcher.start();
    // event 1 is claimed by its insert and sent; its answer is held
    const first = s.row(1);
    expect(await storeAsFanOut([first])).toBe(0);
    await waitFor(async () => held.length === 1, 10_000, 'the first event at the receiver');
    // the statement storing its outcome waits for a lock on its row, its snapshot already taken
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [first.id]);
      hold = false;
      held[0]();
      const recording = `SELECT 1 FROM pg_stat_activity
                          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%WITH done AS%'`;
      await waitFor(async () => (await t.sql(recording)).length > 0, 10_000, 'the outcome being stored');
      // event 2 is stored meanwhile: event 1 is still pending, so its insert leaves it, to the
      // run in flight (no pair is left for a claim), and a claim woken now finds event 1 still held
      const second = s.row(2);
      expect(await storeAsFanOut([second])).toBe(0);
      dispatcher.wake(2);
      await new Promise((r) => setTimeout(r, 300));
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    // the statement storing event 1's outcome did not see event 2: the run's end claims it
    await waitFor(async () => receiver.accepted.size === 2, 10_000, 'the second event at the receiver');
    expect([...receiver.accepted.values()].map((r) => r.event.seq)).toEqual([1, 2]);
  });

  /** The suite's dispatcher, started, and a subscription to `receiver`, listening. */
  async function dispatchingTo(receiver: Receiver) {
    await receiver.listen();
    const s = await subscription(receiver.url);
    const dispatcher = t.app.get(WebhookDispatcher);
    await dispatcher.start();
    return { s, dispatcher, horizon: t.app.get(FanoutHorizon) };
  }

  it("wakes no claim at a run's end when the statement storing its outcomes took or found nothing more of its pair", async () => {
    const receiver = new Receiver('127.0.0.1');
    const { s, dispatcher, horizon } = await dispatchingTo(receiver);
    // a claim of its own first, so that none is owed from the cases before
    dispatcher.wake();
    await new Promise((r) => setTimeout(r, 200));
    const claims = jest.spyOn(deliveries, 'claimRuns');
    try {
      for (let n = 1; n <= 3; n++) {
        const seq = horizon.known + 1;
        expect(await storeAsFanOut([s.row(seq)])).toBe(0);
        const delivered = `SELECT 1 FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'delivered'`;
        await waitFor(async () => (await t.sql(delivered, [s.webhookId])).length === n, 10_000, `event ${n} delivered`);
      }
      // each event went out on its insert's claim and its run ended with nothing left of the pair
      expect(receiver.accepted.size).toBe(3);
      expect(claims).not.toHaveBeenCalled();
    } finally {
      claims.mockRestore();
    }
  });

  it("wakes a claim at a run's end for events of its pair its statement could not take (the subscription changed)", async () => {
    const before = new Receiver('127.0.0.1');
    const after = new Receiver('127.0.0.1');
    const held: (() => void)[] = [];
    before.beforeAnswer = () => new Promise<void>((r) => held.push(r));
    await Promise.all([before.listen(), after.listen()]);
    const s = await subscription(before.url);
    const dispatcher = t.app.get(WebhookDispatcher);
    const horizon = t.app.get(FanoutHorizon);
    await dispatcher.start();
    const first = horizon.known + 1;
    expect(await storeAsFanOut([s.row(first)])).toBe(0);
    await waitFor(async () => before.accepted.size === 1, 10_000, 'the first event at the receiver');
    // while its answer is held: the next event is stored as another instance would (this process
    // does not know of it) and the subscription gets a new URL
    const second = s.row(first + 1);
    expect((await deliveries.insertDeliveries([second], { ...lease, upTo: first + 1, room: 0 })).leftRows).toHaveLength(1);
    horizon.stored([first + 1]);
    await t.sql(`UPDATE webhooks SET url = $2, updated_at = now() WHERE id = $1`, [s.webhookId, after.url]);
    held[0]();
    // the run's statement does not take it (the subscription changed since the run's read); the
    // claim woken at the run's end does, long before the clock's (WEBHOOK_POLL_MS: 10 minutes)
    await waitFor(async () => after.accepted.has(second.eventId), 10_000, 'the second event at the new URL');
    expect(before.accepted.has(second.eventId)).toBe(false);
  });

  it('stores the ends of runs that end while such a statement is in flight together, in the next statement', async () => {
    const receiver = new Receiver('127.0.0.1');
    const { s: a, horizon } = await dispatchingTo(receiver);
    const [b, c] = [await subscription(receiver.url), await subscription(receiver.url)];
    const ends = jest.spyOn(deliveries, 'recordAndContinue');
    const send = async (rows: NewDelivery[]) => expect(await storeAsFanOut(rows)).toBe(0);
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      // a's end waits for a lock on its delivery, with b's and c's ends behind it
      const held: (() => void)[] = [];
      receiver.beforeAnswer = () => (held.length === 0 ? new Promise<void>((r) => held.push(r)) : Promise.resolve());
      const first = a.row(horizon.known + 1);
      await send([first]);
      await waitFor(async () => held.length === 1, 10_000, "a's event at the receiver");
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [first.id]);
      held[0]();
      const waiting = `SELECT 1 FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%WITH done AS%'`;
      await waitFor(async () => (await t.sql(waiting)).length > 0, 10_000, "a's end being stored");
      await send([b.row(horizon.known + 1), c.row(horizon.known + 2)]);
      await waitFor(async () => receiver.accepted.size === 3, 10_000, 'the three events at the receiver');
      await new Promise((r) => setTimeout(r, 200));
      await locker.query('COMMIT');
      const delivered = `SELECT 1 FROM webhook_deliveries WHERE webhook_id = ANY($1::uuid[]) AND status = 'delivered'`;
      await waitFor(
        async () => (await t.sql(delivered, [[a.webhookId, b.webhookId, c.webhookId]])).length === 3,
        10_000,
        'all delivered',
      );
      expect(ends.mock.calls.map(([group]) => group.map((e) => e.webhookId).sort())).toEqual([
        [a.webhookId],
        [b.webhookId, c.webhookId].sort(),
      ]);
    } finally {
      ends.mockRestore();
      await locker.end();
    }
  });

  /** A receiver that holds its first answer until `release`, with the suite's dispatcher sending to it. */
  async function holdingFirst() {
    const receiver = new Receiver('127.0.0.1');
    const held: (() => void)[] = [];
    receiver.beforeAnswer = () => (held.length === 0 ? new Promise<void>((r) => held.push(r)) : Promise.resolve());
    const { s, horizon } = await dispatchingTo(receiver);
    const firstHeld = () => waitFor(async () => held.length === 1, 10_000, 'the first event at the receiver');
    return { receiver, s, horizon, store: storeAsFanOut, firstHeld, release: () => held[0]() };
  }

  const rowsOf = (webhookId: string) =>
    t.sql<{ event_id: string; status: string; attempts: number; due: boolean }>(
      `SELECT event_id, status, attempts, next_attempt_at <= now() AS due FROM webhook_deliveries
        WHERE webhook_id = $1 ORDER BY stream_seq`,
      [webhookId],
    );

  it("takes an event stored while its vault's run is sending into that run: sent next, stored with it, no claim", async () => {
    const { receiver, s, horizon, store, firstHeld, release } = await holdingFirst();
    const claims = jest.spyOn(deliveries, 'claimRuns');
    const ends = jest.spyOn(deliveries, 'recordAndContinue');
    try {
      const first = s.row(horizon.known + 1);
      expect(await store([first])).toBe(0);
      await firstHeld();
      const second = s.row(horizon.known + 1);
      expect(await store([second])).toBe(0);
      release();
      await waitFor(async () => (await rowsOf(s.webhookId)).every((d) => d.status === 'delivered'), 10_000, 'both delivered');
      expect([...receiver.accepted.keys()]).toEqual([first.eventId, second.eventId]);
      expect(ends.mock.calls.map(([group]) => group.map((e) => e.delivered.map((d) => d.id)))).toEqual([[[first.id, second.id]]]);
      expect(claims).not.toHaveBeenCalled();
      expect((await rowsOf(s.webhookId)).map((d) => d.attempts)).toEqual([1, 1]);
    } finally {
      claims.mockRestore();
      ends.mockRestore();
    }
  });

  it("goes on with an event of its pair still being stored when a run's last event is delivered: same run, no claim", async () => {
    const { receiver, s, horizon, store, firstHeld, release } = await holdingFirst();
    const claims = jest.spyOn(deliveries, 'claimRuns');
    const ends = jest.spyOn(deliveries, 'recordAndContinue');
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    try {
      const first = s.row(horizon.known + 1);
      expect(await store([first])).toBe(0);
      await firstHeld();
      // the second event's insert waits for another transaction holding a row with its event id
      const second = s.row(horizon.known + 1);
      await locker.query('BEGIN');
      await locker.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, vault_id, event_id, event_type, stream_seq, body, status, attempts, next_attempt_at)
         VALUES ($1, $2, $3, $4, 'record.updated', $5, '{}', 'pending', 0, now())`,
        [randomUUID(), s.webhookId, s.vaultId, second.eventId, second.streamSeq],
      );
      const storing = store([second]);
      const inserting = `SELECT 1 FROM pg_stat_activity
                          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%INSERT INTO webhook_deliveries AS d%'`;
      await waitFor(async () => (await t.sql(inserting)).length > 0, 10_000, 'the second insert waiting');
      // the first is delivered while the second is being stored: its run waits for that store
      release();
      await new Promise((r) => setTimeout(r, 300));
      expect(ends).not.toHaveBeenCalled();
      await locker.query('ROLLBACK');
      expect(await storing).toBe(0);
      await waitFor(async () => (await rowsOf(s.webhookId)).every((d) => d.status === 'delivered'), 10_000, 'both delivered');
      expect([...receiver.accepted.keys()]).toEqual([first.eventId, second.eventId]);
      expect(ends.mock.calls.map(([group]) => group.map((e) => e.delivered.map((d) => d.id)))).toEqual([[[first.id, second.id]]]);
      expect(claims).not.toHaveBeenCalled();
    } finally {
      claims.mockRestore();
      ends.mockRestore();
      await locker.end();
    }
  });

  it("counts the attempt of an event taken into a run when it fails, and hands the run's later ones back uncounted", async () => {
    const { receiver, s, horizon, store, firstHeld, release } = await holdingFirst();
    receiver.answer = (n) => (n === 1 ? 500 : 204);
    const [first, second, third] = [1, 2, 3].map((k) => s.row(horizon.known + k));
    expect(await store([first])).toBe(0);
    await firstHeld();
    expect(await store([second, third])).toBe(0);
    release();
    await waitFor(async () => (await rowsOf(s.webhookId))[1].attempts === 1, 10_000, 'the second attempted');
    await waitFor(async () => (await rowsOf(s.webhookId))[0].status === 'delivered', 10_000, 'the run stored');
    expect(await rowsOf(s.webhookId)).toEqual([
      { event_id: first.eventId, status: 'delivered', attempts: 1, due: null },
      { event_id: second.eventId, status: 'pending', attempts: 1, due: false },
      { event_id: third.eventId, status: 'pending', attempts: 0, due: true },
    ]);
    expect(receiver.requests.map((r) => r.id)).toEqual([first.eventId, second.eventId]);
  });

  it('takes no event into a run with an event of its pair pending before it that the run does not hold', async () => {
    const { receiver, s, horizon, store, firstHeld, release } = await holdingFirst();
    const ends = jest.spyOn(deliveries, 'recordAndContinue');
    try {
      const [first, second, third] = [1, 2, 3].map((k) => s.row(horizon.known + k));
      expect(await store([first])).toBe(0);
      await firstHeld();
      // the second is stored by another instance: this process knows nothing of it
      expect(
        (await deliveries.insertDeliveries([second], { ...lease, upTo: Number(second.streamSeq), room: 0 })).leftRows,
      ).toHaveLength(1);
      horizon.stored([Number(second.streamSeq)]);
      expect(await store([third])).toBe(0);
      release();
      await waitFor(async () => receiver.accepted.size === 3, 10_000, 'the three events at the receiver');
      expect([...receiver.accepted.keys()]).toEqual([first.eventId, second.eventId, third.eventId]);
      // the run held the first only; its end's statement went on with the second and third
      expect(ends.mock.calls[0][0].map((e) => e.delivered.map((d) => d.id))).toEqual([[first.id]]);
    } finally {
      ends.mockRestore();
    }
  });

  // Last: it stops the suite's dispatcher.
  it('stops only after a store in progress: the run its insert claimed is sent before the client closes', async () => {
    const receiver = new Receiver('127.0.0.1');
    const { s, dispatcher, horizon } = await dispatchingTo(receiver);
    const event = s.row(horizon.known + 1);
    const locker = new Client({ connectionString: t.db.url });
    await locker.connect();
    let storing: Promise<number> | undefined;
    let stopping: Promise<void> | undefined;
    try {
      // the insert waits for the table while the dispatcher is told to stop
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE webhook_deliveries IN EXCLUSIVE MODE');
      storing = dispatcher.store([event], horizon.reachedWith([Number(event.streamSeq)]));
      const inserting = `SELECT 1 FROM pg_stat_activity
                          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%INSERT INTO webhook_deliveries%'`;
      await waitFor(async () => (await t.sql(inserting)).length > 0, 10_000, 'the insert waiting');
      stopping = dispatcher.stop();
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    expect(await storing).toBe(0);
    await stopping;
    expect(receiver.accepted.has(event.eventId)).toBe(true);
    const [row] = await t.sql<{ status: string; last_error: string | null }>(
      `SELECT status, last_error FROM webhook_deliveries WHERE id = $1`,
      [event.id],
    );
    expect(row).toEqual({ status: 'delivered', last_error: null });
    // a second stop (the app's shutdown) waits for the same one
    await expect(dispatcher.stop()).resolves.toBeUndefined();
  });
});
