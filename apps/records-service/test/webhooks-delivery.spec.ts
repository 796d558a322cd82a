import { randomUUID } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { NATS_CONNECTION } from '@vault/platform/events';
import { TestNatsServer } from '@vault/platform/testing';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { EventStreams } from '../src/capabilities/events/event-streams';
import { FanoutHorizon } from '../src/features/webhooks/fanout-horizon';
import { WebhooksEnv } from '../src/features/webhooks/webhooks.env';
import { Webhook } from 'standardwebhooks';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { Caller, recordBody, RecordsTestApp } from './support';
import { INLINE_DELIVERY_ENV, Receiver } from './webhook-receiver';

describe('webhook delivery (real NATS, PostgreSQL and receivers)', () => {
  jest.setTimeout(120_000);
  let nats: TestNatsServer;
  let t: RecordsTestApp;
  let owner: Caller;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    t = await RecordsTestApp.start('records_webhook_delivery', {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('hooks'),
      ...INLINE_DELIVERY_ENV,
    });
    // The webhook consumer runs on the service's JetStream transport (as main.ts connects it).
    await startJetStreamConsumers(t.app);
  });
  // Each case has its own owner (the default plan limits the vaults one account owns).
  beforeEach(async () => {
    owner = await t.caller();
  });
  afterAll(async () => {
    await Receiver.closeAll();
    await t?.stop();
    await nats?.dispose();
  });

  const hooks = (v: string) => `/vault/vault-id/${v}/webhooks`;
  const subscribe = async (vaultId: string, url: string, events: string[] = ['*']) =>
    (await t.post(owner, hooks(vaultId), { url, events }).expect(201)).body as { id: string; secret: string };
  const deliveries = (webhookId: string) =>
    t.sql<{
      event_id: string;
      status: string;
      attempts: number;
      last_status_code: number | null;
      last_error: string | null;
      last_response_excerpt: string | null;
    }>(`SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY stream_seq`, [webhookId]);
  const settled = (webhookId: string, n: number, ms = 60_000) =>
    waitFor(
      async () => {
        const rows = await deliveries(webhookId);
        return rows.length === n && rows.every((d) => d.status !== 'pending');
      },
      ms,
      `${n} settled deliveries`,
    );
  /** Event ids of a vault's outbox, in the order they were written, for the given subjects. */
  const outboxIds = async (vaultId: string, subjects: string[]) =>
    (await t.outbox()).filter((e) => e.vault_id === vaultId && subjects.includes(e.subject)).map((e) => e.id);

  /**
   * `n` record.created events of a new vault stored as deliveries of a new subscription
   * while its receiver is down (so they all wait behind the first); the receiver is closed.
   */
  const pendingBehindFirst = async (n: number) => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    await receiver.close();
    const vaultId = await t.createVault(owner, { name: 'Runs' });
    const sub = await subscribe(vaultId, receiver.url, ['record.created']);
    for (let i = 1; i <= n; i++) await t.createRecord(owner, vaultId, recordBody({ name: `R${i}` }));
    const ids = await outboxIds(vaultId, ['vault.record.created.v1']);
    expect(ids).toHaveLength(n);
    await waitFor(async () => (await deliveries(sub.id)).length === n, 30_000, `${n} deliveries stored`);
    return { receiver, vaultId, sub, ids };
  };

  it('delivers every event exactly once to a receiver that is down, then fails, then answers, in order per vault', async () => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    await receiver.close(); // the port is known and refuses connections: the receiver is down
    const vaultA = await t.createVault(owner, { name: 'Alpha' });
    const vaultB = await t.createVault(owner, { name: 'Beta' });
    const subA = await subscribe(vaultA, receiver.url, ['record.created', 'record.updated', 'record.deleted']);
    const subB = await subscribe(vaultB, receiver.url, ['record.created', 'record.updated', 'record.deleted']);

    const a1 = await t.createRecord(owner, vaultA, recordBody({ name: 'A1' }));
    const b1 = await t.createRecord(owner, vaultB, recordBody({ name: 'B1' }));
    await t.createRecord(owner, vaultA, recordBody({ name: 'A2' }));
    await t.put(owner, `/vault/vault-id/${vaultA}/records/record-id/${a1}`, recordBody({ name: 'A1 renamed' })).expect(200);
    await t.createRecord(owner, vaultB, recordBody({ name: 'B2' }));
    await t.delete(owner, `/vault/vault-id/${vaultB}/records/record-id/${b1}`).expect(200);
    await t.createRecord(owner, vaultA, recordBody({ name: 'A3' }));
    const subjects = ['vault.record.created.v1', 'vault.record.updated.v1', 'vault.record.deleted.v1'];
    const expectedA = await outboxIds(vaultA, subjects);
    const expectedB = await outboxIds(vaultB, subjects);
    expect(expectedA).toHaveLength(4);
    expect(expectedB).toHaveLength(3);

    // While it is down, the first event of each vault fails (connection refused) and holds the others back.
    await waitFor(
      async () => (await deliveries(subA.id)).some((d) => d.attempts >= 2 && /ECONNREFUSED/.test(d.last_error ?? '')),
      30_000,
      'failed attempts while the receiver is down',
    );
    const held = await deliveries(subA.id);
    // only the vault's oldest event was tried; a claim made once several were pending leases the
    // later ones in its run too (counted, not sent: the run stops at the failure)
    expect(held.filter((d) => d.last_error !== null).map((d) => d.event_id)).toEqual([held[0].event_id]);
    expect(held.every((d) => d.status === 'pending')).toBe(true);

    // Back up: the next four requests get 500, then 200.
    receiver.answer = (n) => (n < 4 ? 500 : 200);
    receiver.secretsByVault.set(vaultA, [subA.secret]).set(vaultB, [subB.secret]);
    await receiver.listen();
    await settled(subA.id, 4);
    await settled(subB.id, 3);

    // Each event accepted once, the order of each vault kept, nothing else delivered.
    expect(receiver.acceptedOf(vaultA)).toEqual(expectedA);
    expect(receiver.acceptedOf(vaultB)).toEqual(expectedB);
    expect(receiver.accepted.size).toBe(7);
    expect(receiver.requests.filter((r) => r.answered === 500).length).toBe(4);
    // Retries carry the same webhook-id and body.
    for (const r of receiver.requests.filter((x) => x.answered === 500)) {
      expect(receiver.accepted.get(r.id)?.body).toBe(r.body);
    }
    // Both subscriptions' signatures verify with their own secret (and not with the other's).
    for (const r of receiver.accepted.values()) {
      const headers = { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature };
      const [mine, other] = r.event.vaultid === vaultA ? [subA, subB] : [subB, subA];
      expect(() => new Webhook(mine.secret).verify(r.body, headers)).not.toThrow();
      expect(() => new Webhook(other.secret).verify(r.body, headers)).toThrow();
    }
    expect(receiver.rejected).toEqual([]);

    // The delivery log tells the story.
    const log = await t.get(owner, `${hooks(vaultA)}/webhook-id/${subA.id}/deliveries`).expect(200);
    expect(log.body.data).toHaveLength(4);
    // `items` (deprecated) repeats `data` until its Sunset date
    expect(log.body.items).toEqual(log.body.data);
    for (const d of log.body.data) {
      expect(d).toMatchObject({ status: 'delivered', lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      expect(d.deliveredAt).not.toBeNull();
    }
    const first = log.body.data.find((d: { eventId: string }) => d.eventId === expectedA[0]);
    expect(first.attempts).toBeGreaterThanOrEqual(3);
    // Response bodies are kept only as a short excerpt.
    const failed = (await deliveries(subA.id)).concat(await deliveries(subB.id));
    expect(failed.every((d) => (d.last_response_excerpt ?? '').length <= 256)).toBe(true);
    const sub = await t.get(owner, `${hooks(vaultA)}/webhook-id/${subA.id}`).expect(200);
    expect(sub.body).toMatchObject({ enabled: true, failingSince: null });
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it("sends a run of one vault's events back to back in order; a failure in the middle stops the run and the later events wait", async () => {
    const { receiver, vaultId, sub, ids } = await pendingBehindFirst(5);
    // One more failed claim of the first event once all five are stored (and acknowledged by the fan-out).
    const tried = (await deliveries(sub.id))[0].attempts;
    // read once that claim is over: while it runs the later events are leased with the first (their
    // attempt counted), and they are handed back (not counted) when the first fails
    let before: Awaited<ReturnType<typeof deliveries>> = [];
    await waitFor(
      async () => {
        before = await deliveries(sub.id);
        return before[0].attempts > tried && before.every((d) => (d as { leased_until?: Date | null }).leased_until == null);
      },
      30_000,
      'another attempt at the first event, ended',
    );
    expect(before.map((d) => d.status)).toEqual(Array(5).fill('pending'));
    expect(before.slice(1).map((d) => d.attempts)).toEqual([0, 0, 0, 0]);

    // Back up: the first two requests get 200, the third 500, then 200 again.
    receiver.answer = (n) => (n === 2 ? 500 : 200);
    const seen: { requests: string[]; rows: { event_id: string; status: string; attempts: number; leased: boolean }[] }[] = [];
    const snapshot = async () => ({
      requests: receiver.requests.map((r) => r.id),
      rows: await t.sql<{ event_id: string; status: string; attempts: number; leased: boolean }>(
        `SELECT event_id, status, attempts, leased_until IS NOT NULL AS leased FROM webhook_deliveries
          WHERE webhook_id = $1 ORDER BY stream_seq`,
        [sub.id],
      ),
    });
    // Looks at the deliveries while the first request, and the retry of the failed one, wait for their answer.
    receiver.beforeAnswer = async () => {
      if (receiver.requests.length === 1 || receiver.requests.length === 4) seen.push(await snapshot());
    };
    receiver.secrets = [sub.secret];
    await receiver.listen();
    await settled(sub.id, 5);

    // The first claim took all five as one run: every later event leased with it and its attempt counted.
    const [run, retry] = seen;
    expect(run.requests).toEqual([ids[0]]);
    expect(run.rows.slice(1)).toEqual(ids.slice(1).map((id) => ({ event_id: id, status: 'pending', attempts: 1, leased: true })));
    // The 500 on the third stopped the run: the fourth was not sent before the third succeeded, and the
    // events after it were handed back (their attempt not counted) before the next run took them again.
    expect(retry.requests).toEqual([ids[0], ids[1], ids[2], ids[2]]);
    expect(retry.rows.map((r) => [r.status, r.attempts])).toEqual([
      ['delivered', run.rows[0].attempts],
      ['delivered', 1],
      ['pending', 2],
      ['pending', 1],
      ['pending', 1],
    ]);
    expect(receiver.requests.map((r) => r.id)).toEqual([ids[0], ids[1], ids[2], ids[2], ids[3], ids[4]]);
    expect(receiver.acceptedOf(vaultId)).toEqual(ids);
    const rows = await deliveries(sub.id);
    expect(rows.map((d) => [d.status, d.attempts])).toEqual([
      ['delivered', run.rows[0].attempts],
      ['delivered', 1],
      ['delivered', 2],
      ['delivered', 1],
      ['delivered', 1],
    ]);
    expect(rows[2]).toMatchObject({ last_status_code: 200, last_error: null });
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it('never lets another claim take an event of a run still being sent: with a slow receiver a run stops early, every event goes once, in order', async () => {
    // attempts of 1.5 s: ten back to back would outlast the first event's lease (one attempt's
    // time, 3 s here, plus 10 s), after which another claim could send it again beside the run
    const { receiver, vaultId, sub, ids } = await pendingBehindFirst(10);
    receiver.beforeAnswer = () => new Promise((r) => setTimeout(r, 1500));
    receiver.secrets = [sub.secret];
    await receiver.listen();
    await settled(sub.id, 10);
    expect(receiver.requests.map((r) => r.id)).toEqual(ids);
    expect(receiver.acceptedOf(vaultId)).toEqual(ids);
    expect((await deliveries(sub.id)).map((d) => d.status)).toEqual(Array(10).fill('delivered'));
  });

  it('sends a CloudEvents envelope whose data is the resource as the API shows it', async () => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    const vaultId = await t.createVault(owner, { name: 'Envelope' });
    const sub = await subscribe(vaultId, receiver.url);
    receiver.secrets = [sub.secret];
    const recordId = await t.createRecord(owner, vaultId, recordBody({ name: 'Passport' }));
    await t.put(owner, `/vault/vault-id/${vaultId}`, { name: 'Envelope 2' }).expect(201);
    await t.delete(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`).expect(200);
    // the delete sends record.deleted, then record.trashed (docs/webhooks.md, Event types)
    await settled(sub.id, 4);

    const byType = new Map([...receiver.accepted.values()].map((r) => [r.event.type, r]));
    const created = byType.get('record.created');
    const api = await t.get(owner, `/vault/vault-id/${vaultId}/records/record-id/${recordId}`);
    expect(created?.event).toMatchObject({
      specversion: '1.0',
      id: created?.id,
      source: `/vault/vault-id/${vaultId}`,
      type: 'record.created',
      datacontenttype: 'application/json',
      vaultid: vaultId,
    });
    expect(Date.parse(created?.event.time)).not.toBeNaN();
    expect(created?.event.data).toMatchObject({
      id: recordId,
      name: 'Passport',
      recordType: { name: 'identityDocs' },
      recordSubtype: { name: 'passport' },
      vaultId,
    });
    // The record was deleted before the API could be asked; the envelope holds what the lookup showed.
    expect(api.status).toBe(404);
    expect(byType.get('vault.updated')?.event.data).toMatchObject({ id: vaultId, name: 'Envelope 2' });
    expect(byType.get('record.deleted')?.event.data).toEqual({
      id: recordId,
      name: 'Passport',
      recordTypeName: 'identityDocs',
    });
    expect(byType.get('record.trashed')?.event.data).toEqual({
      id: recordId,
      name: 'Passport',
      recordTypeName: 'identityDocs',
      purgeAt: expect.any(String),
    });
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it('signs with both secrets while a rotation overlaps', async () => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    const vaultId = await t.createVault(owner, { name: 'Rotation' });
    const sub = await subscribe(vaultId, receiver.url, ['record.created']);
    const rotated = (await t.post(owner, `${hooks(vaultId)}/webhook-id/${sub.id}/rotate-secret`).expect(200)).body;
    receiver.secrets = [sub.secret, rotated.secret];
    await t.createRecord(owner, vaultId, recordBody({ name: 'Rotated' }));
    await settled(sub.id, 1);
    const [r] = receiver.accepted.values();
    expect(r.signature.split(' ')).toHaveLength(2);
    expect(r.signature).toMatch(/^v1,[A-Za-z0-9+/=]+ v1,[A-Za-z0-9+/=]+$/);

    // Once the overlap is over only the new secret signs.
    await t.sql(`UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [sub.id]);
    receiver.secrets = [rotated.secret];
    await t.createRecord(owner, vaultId, recordBody({ name: 'After overlap' }));
    await settled(sub.id, 2);
    const last = receiver.requests[receiver.requests.length - 1];
    const headers = { 'webhook-id': last.id, 'webhook-timestamp': last.timestamp, 'webhook-signature': last.signature };
    expect(() => new Webhook(sub.secret).verify(last.body, headers)).toThrow();
    expect(last.signature.split(' ')).toHaveLength(1);
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it('disables a subscription whose receiver answers 410 Gone; later events are not sent to it', async () => {
    const receiver = new Receiver('127.0.0.1');
    receiver.answer = () => 410;
    await receiver.listen();
    const vaultId = await t.createVault(owner, { name: 'Gone' });
    const sub = await subscribe(vaultId, receiver.url, ['record.created']);
    await t.createRecord(owner, vaultId, recordBody({ name: 'One' }));
    await settled(sub.id, 1);
    const w = await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`).expect(200);
    expect(w.body).toMatchObject({
      enabled: false,
      disabledCode: 'receiver_gone',
      disabledReason: expect.stringMatching(/410 Gone/),
    });
    const [d] = await deliveries(sub.id);
    // no attempt after the 410 (an earlier attempt cut by the connect timeout on a loaded
    // machine would count without reaching the receiver: the receiver's count is the check)
    expect(d).toMatchObject({ status: 'failed', last_status_code: 410 });
    expect(receiver.requests).toHaveLength(1);

    await t.createRecord(owner, vaultId, recordBody({ name: 'Two' }));
    await waitFor(async () => (await t.outbox()).every((e) => e.published_at !== null), 15_000, 'the outbox relayed');
    await new Promise((r) => setTimeout(r, 1000));
    expect(await deliveries(sub.id)).toHaveLength(1);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it('gives up after the schedule, and disables a subscription failing for days with its reason', async () => {
    const receiver = new Receiver('127.0.0.1');
    receiver.answer = () => 500;
    await receiver.listen();
    const vaultId = await t.createVault(owner, { name: 'Failing' });
    const sub = await subscribe(vaultId, receiver.url, ['record.created']);
    await t.createRecord(owner, vaultId, recordBody({ name: 'Never' }));
    await settled(sub.id, 1);
    const [d] = await deliveries(sub.id);
    // The first attempt and one per delay of the schedule.
    expect(d).toMatchObject({ status: 'failed', attempts: 11, last_status_code: 500, last_error: 'HTTP 500' });
    const still = await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`).expect(200);
    expect(still.body.enabled).toBe(true);
    expect(still.body.failingSince).not.toBeNull();

    // The streak began six days ago: the next failure disables the subscription.
    await t.sql(`UPDATE webhooks SET failing_since = now() - interval '6 days' WHERE id = $1`, [sub.id]);
    await t.createRecord(owner, vaultId, recordBody({ name: 'Last straw' }));
    await waitFor(
      async () => !(await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`)).body.enabled,
      30_000,
      'the subscription to be disabled',
    );
    const off = await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`).expect(200);
    expect(off.body.disabledReason).toMatch(/^deliveries failing since .*; last error: HTTP 500$/);
    expect(off.body.disabledCode).toBe('deliveries_failing');

    // The owner fixes the receiver and resumes: the pending delivery goes out.
    receiver.answer = () => 200;
    await t
      .put(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`, { url: receiver.url, events: ['record.created'], enabled: true })
      .expect(200);
    await settled(sub.id, 2);
    const rows = await deliveries(sub.id);
    expect(rows.map((r) => r.status)).toEqual(['failed', 'delivered']);

    // Redelivering the given-up one sends it again with the same webhook-id.
    const before = receiver.requests.length;
    const log = await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}/deliveries`).expect(200);
    const gaveUp = log.body.data.find((x: { status: string }) => x.status === 'failed');
    await t.post(owner, `${hooks(vaultId)}/webhook-id/${sub.id}/deliveries/delivery-id/${gaveUp.id}/redeliver`).expect(202);
    await settled(sub.id, 2);
    expect(receiver.requests.slice(before).map((r) => r.id)).toEqual([gaveUp.eventId]);
    expect((await deliveries(sub.id)).map((r) => r.status)).toEqual(['delivered', 'delivered']);
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it('does not follow redirects: a 3xx is a failed attempt and its Location is never requested', async () => {
    const target = new Receiver('127.0.0.1');
    await target.listen();
    const redirecting = new Receiver('127.0.0.1');
    redirecting.answer = () => 307;
    redirecting.redirectTo = target.url;
    await redirecting.listen();
    const vaultId = await t.createVault(owner, { name: 'Redirect' });
    const sub = await subscribe(vaultId, redirecting.url, ['record.created']);
    await t.createRecord(owner, vaultId, recordBody({ name: 'Moved' }));
    // an attempt cut by the connect timeout on a loaded machine records no status: wait for a row
    // of at least two attempts whose last one the receiver answered, and check that row
    let d: Awaited<ReturnType<typeof deliveries>>[number] | undefined;
    await waitFor(
      async () => {
        d = (await deliveries(sub.id)).find((row) => row.attempts >= 2 && row.last_status_code !== null);
        return d !== undefined;
      },
      30_000,
      'two attempts, the last one answered',
    );
    expect(d).toMatchObject({ status: 'pending', last_status_code: 307, last_error: 'HTTP 307' });
    // at least the answered attempt reached the receiver (an earlier one may have been cut by
    // the connect timeout before it arrived, as the row's count allows), and never the Location
    expect(redirecting.requests.length).toBeGreaterThanOrEqual(1);
    expect(target.requests).toHaveLength(0);
    await t.delete(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`).expect(200);
    await redirecting.close();
    await target.close();
  });

  it('checks the target again at each delivery: a loopback address not allowed is never connected to', async () => {
    // 127.0.0.2 is loopback and WEBHOOK_ALLOWED_TARGETS names only 127.0.0.1; the row stands for a
    // subscription whose name resolved to a public address when it was made.
    const receiver = new Receiver('127.0.0.2');
    await receiver.listen();
    const vaultId = await t.createVault(owner, { name: 'Rebound' });
    const sub = await subscribe(vaultId, 'http://127.0.0.1:9/never', ['record.created']);
    await t.sql(`UPDATE webhooks SET url = $2 WHERE id = $1`, [sub.id, receiver.url]);
    await t.createRecord(owner, vaultId, recordBody({ name: 'Blocked' }));
    await waitFor(async () => (await deliveries(sub.id)).some((d) => d.attempts >= 2), 30_000, 'two attempts');
    const [d] = await deliveries(sub.id);
    expect(d.last_error).toMatch(/127\.0\.0\.2.*loopback/);
    expect(d.last_status_code).toBeNull();
    expect(receiver.requests).toHaveLength(0);
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it('refuses IPv6 forms embedding a loopback address, at subscription and at delivery, and never connects', async () => {
    // Only loopback is ever connected to: a socket to any other host fails here before it
    // opens (and is recorded), so a guard letting one of these forms through fails the test.
    const attempts: string[] = [];
    for (const mod of [net, tls] as { connect: (...args: unknown[]) => unknown }[]) {
      const connect = mod.connect.bind(mod);
      jest.spyOn(mod, 'connect').mockImplementation((...args: unknown[]) => {
        const o = args[0] as { host?: string; servername?: string } | undefined;
        const host = typeof o === 'object' && o ? (o.host ?? '') : String(args[1] ?? '');
        if (!/^(127\.0\.0\.1|localhost|::1)$/.test(host)) {
          attempts.push(host);
          throw new Error(`a connection to ${host} was attempted`);
        }
        return connect(...args);
      });
    }
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    const forms = ['[64:ff9b:1::7f00:1]', '[2002:7f00:1::]', '[::7f00:2]', '[::ffff:0:7f00:1]', '[2001:0:7f00:1::]'];
    try {
      const vaultId = await t.createVault(owner, { name: 'Embedded' });
      for (const host of forms) {
        const res = await t.post(owner, hooks(vaultId), { url: `https://${host}:${receiver.port}/hooks`, events: ['*'] });
        expect({ host, status: res.status, code: res.body.code }).toEqual({ host, status: 400, code: 'webhook_target_refused' });
      }
      // Rows standing for subscriptions made before the guard knew these forms.
      const subs = [];
      for (const host of forms) {
        const sub = await subscribe(vaultId, receiver.url, ['record.created']);
        await t.sql(`UPDATE webhooks SET url = $2 WHERE id = $1`, [sub.id, `https://${host}:${receiver.port}/hooks`]);
        subs.push(sub);
      }
      await t.createRecord(owner, vaultId, recordBody({ name: 'Never sent' }));
      for (const [i, sub] of subs.entries()) {
        await waitFor(async () => (await deliveries(sub.id)).some((d) => d.last_error !== null), 30_000, 'a failed attempt');
        const [d] = await deliveries(sub.id);
        expect({ form: forms[i], error: d.last_error }).toEqual({
          form: forms[i],
          error: expect.stringMatching(/resolves to .*(embedding 127\.0\.0\.[12]|local-use)/),
        });
        expect(d.last_status_code).toBeNull();
      }
      expect(attempts).toEqual([]);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      jest.restoreAllMocks();
      await receiver.close();
    }
  });

  /** A subscription's deliveries in stream order, with their ids and retry times. */
  const queue = (webhookId: string) =>
    t.sql<{ id: string; status: string; attempts: number; next_attempt_at: Date | null }>(
      `SELECT id, status, attempts, next_attempt_at FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY stream_seq`,
      [webhookId],
    );
  /**
   * Once the first pending delivery of a subscription has failed and is not in flight, its
   * retry is put ten minutes ahead (as a late step of the schedule would): true when done.
   */
  const pushBack = async (webhookId: string) =>
    (
      await t.sql(
        `UPDATE webhook_deliveries SET next_attempt_at = now() + interval '10 minutes'
          WHERE id = (SELECT id FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending' ORDER BY stream_seq LIMIT 1)
            AND attempts >= 1 AND last_error IS NOT NULL AND (leased_until IS NULL OR leased_until <= now())
          RETURNING id`,
        [webhookId],
      )
    ).length === 1;

  it('once the endpoint answers 2xx again, deliveries to it waiting for a retry are due at once, in order per vault', async () => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    await receiver.close(); // the port is known and refuses connections: the receiver is down
    const vaultA = await t.createVault(owner, { name: 'Recovery A' });
    const vaultB = await t.createVault(owner, { name: 'Recovery B' });
    // Two subscriptions on the same endpoint (one per vault), as an integration with several vaults has.
    const subA = await subscribe(vaultA, receiver.url, ['record.created']);
    const subB = await subscribe(vaultB, `${receiver.url}/other-path`, ['record.created']);
    for (const name of ['A1', 'A2', 'A3']) await t.createRecord(owner, vaultA, recordBody({ name }));
    for (const name of ['B1', 'B2']) await t.createRecord(owner, vaultB, recordBody({ name }));
    const expectedA = await outboxIds(vaultA, ['vault.record.created.v1']);
    const expectedB = await outboxIds(vaultB, ['vault.record.created.v1']);

    // Each vault's first event failed and waits ten minutes for its retry (a late step of the
    // schedule); the later ones wait behind it.
    const waiting = async (webhookId: string, n: number) => {
      const rows = await queue(webhookId);
      return (
        rows.length === n &&
        rows[0].attempts >= 1 &&
        (rows[0].next_attempt_at?.getTime() ?? 0) > Date.now() + 60_000 &&
        rows.slice(1).every((d) => d.attempts === 0 && d.status === 'pending')
      );
    };
    await waitFor(
      async () =>
        (await pushBack(subA.id)) && (await pushBack(subB.id)) && (await waiting(subA.id, 3)) && (await waiting(subB.id, 2)),
      30_000,
      'both heads failed, every delivery stored',
    );

    // The receiver is back; nothing is due before the retries' time, so nothing arrives on its own.
    receiver.secretsByVault.set(vaultA, [subA.secret]).set(vaultB, [subB.secret]);
    await receiver.listen();
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(0);
    expect(await waiting(subB.id, 2)).toBe(true);

    // One delivery of vault A goes through (its owner redelivers it): the endpoint answers 2xx,
    // so every delivery to it waiting for a retry goes out now, vault B's included.
    const [headA] = await queue(subA.id);
    await t.post(owner, `${hooks(vaultA)}/webhook-id/${subA.id}/deliveries/delivery-id/${headA.id}/redeliver`).expect(202);
    const delivered = async (webhookId: string) => (await queue(webhookId)).every((d) => d.status === 'delivered');
    await waitFor(async () => (await delivered(subA.id)) && (await delivered(subB.id)), 20_000, 'every delivery delivered');

    expect(receiver.acceptedOf(vaultA)).toEqual(expectedA);
    expect(receiver.acceptedOf(vaultB)).toEqual(expectedB);
    expect(receiver.requests.map((r) => r.id).sort()).toEqual([...expectedA, ...expectedB].sort());
    expect(receiver.rejected).toEqual([]);
    const subs = await Promise.all(
      [
        [vaultA, subA.id],
        [vaultB, subB.id],
      ].map(async ([v, id]) => (await t.get(owner, `${hooks(v)}/webhook-id/${id}`).expect(200)).body),
    );
    expect(subs.map((s) => s.failingSince)).toEqual([null, null]);
    await receiver.close();
  });

  it('makes due only the recovered tenant’s deliveries: another tenant’s subscriptions to the same origin keep their schedule', async () => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    await receiver.close(); // down: both tenants' first events fail
    const other = await t.caller('tenant-b');
    const vaultA = await t.createVault(owner, { name: 'Tenant A' });
    const vaultB = await t.createVault(other, { name: 'Tenant B' });
    const subA = await subscribe(vaultA, receiver.url, ['record.created']);
    const subB = (await t.post(other, hooks(vaultB), { url: `${receiver.url}/b`, events: ['record.created'] }).expect(201))
      .body as { id: string; secret: string };
    await t.createRecord(owner, vaultA, recordBody({ name: 'A1' }));
    await t.createRecord(other, vaultB, recordBody({ name: 'B1' }));
    const failing = async (id: string) =>
      (await t.sql(`SELECT 1 FROM webhooks WHERE id = $1 AND failing_since IS NOT NULL`, [id])).length === 1;
    await waitFor(
      async () => (await pushBack(subA.id)) && (await pushBack(subB.id)) && (await failing(subA.id)) && (await failing(subB.id)),
      30_000,
      'both first events failed',
    );
    const [heldB] = await queue(subB.id);

    // Back up; tenant A's delivery goes through (its owner redelivers it) and ends A's failing streak.
    receiver.secretsByVault.set(vaultA, [subA.secret]).set(vaultB, [subB.secret]);
    await receiver.listen();
    const [headA] = await queue(subA.id);
    await t.post(owner, `${hooks(vaultA)}/webhook-id/${subA.id}/deliveries/delivery-id/${headA.id}/redeliver`).expect(202);
    // failing_since is cleared by the statement that makes the origin's waiting deliveries due.
    await waitFor(async () => !(await failing(subA.id)), 20_000, 'tenant A recovered');

    // Tenant B's delivery to the same origin still waits for its own retry, and was not sent.
    const [stillB] = await queue(subB.id);
    expect(stillB).toMatchObject({ id: heldB.id, status: 'pending', attempts: heldB.attempts });
    expect(stillB.next_attempt_at).toEqual(heldB.next_attempt_at);
    expect(receiver.requests.map((r) => r.event.vaultid)).toEqual([vaultA]);
    expect(receiver.rejected).toEqual([]);
    await t.delete(other, `${hooks(vaultB)}/webhook-id/${subB.id}`).expect(200);
    await receiver.close();
  });

  it('sends a subscription the events stamped at or after its createdAt (one clock for both), not those before', async () => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    const vaultId = await t.createVault(owner, { name: 'Boundary' });
    const sub = (await t.post(owner, hooks(vaultId), { url: receiver.url, events: ['vault.updated'] }).expect(201)).body;
    receiver.secrets = [sub.secret];
    // The createdAt the API shows is the stored creation time itself.
    const [{ same }] = await t.sql<{ same: boolean }>(`SELECT created_at = $2::timestamptz AS same FROM webhooks WHERE id = $1`, [
      sub.id,
      sub.createdAt,
    ]);
    expect(same).toBe(true);

    // Three changes of the vault written as the service writes them (outbox rows), stamped
    // 1 ms before, at and 1 ms after the subscription's createdAt.
    const [created] = (await t.outbox('vault.vault.created.v1')).filter((e) => e.vault_id === vaultId);
    const events = [-1, 0, 1].map((ms) => ({ id: randomUUID(), at: new Date(Date.parse(sub.createdAt) + ms).toISOString() }));
    await t.sql(
      `INSERT INTO outbox_events (id, subject, tenant_id, vault_id, payload, occurred_at)
       SELECT e.id, 'vault.vault.updated.v1', $3, $4,
              $5::jsonb || jsonb_build_object('occurredAt', e.at, 'changedFields', '["name"]'::jsonb), e.at::timestamptz
         FROM unnest($1::uuid[], $2::text[]) AS e(id, at)`,
      [events.map((e) => e.id), events.map((e) => e.at), owner.tenantId, vaultId, JSON.stringify(created.payload)],
    );

    // Every event of the stream up to the last of them has been through the fan-out (its ack floor passed them).
    const ids: string[] = events.map((e) => e.id);
    await waitFor(
      async () => (await t.outbox()).filter((e) => ids.includes(e.id) && e.published_at !== null).length === 3,
      30_000,
      'the three events published',
    );
    const jsm = await jetstreamManager(t.app.get<NatsConnection>(NATS_CONNECTION));
    const last = (await jsm.streams.info(new EventStreams(t.app.get(WebhooksEnv)).events.name)).state.last_seq;
    const horizon = t.app.get(FanoutHorizon);
    await waitFor(async () => (await horizon.current()) >= last, 30_000, 'the fan-out to pass the three events');

    expect((await deliveries(sub.id)).map((d) => d.event_id)).toEqual(ids.slice(1));
    await settled(sub.id, 2);
    expect(receiver.acceptedOf(vaultId)).toEqual(ids.slice(1));
    expect([...receiver.accepted.values()].map((r) => r.event.time)).toEqual(events.slice(1).map((e) => e.at));
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it('leaves a failing endpoint’s deliveries on their schedule when another endpoint answers', async () => {
    // `up` listens first: `down`'s port, freed at once, cannot then be `up`'s too (a success of an
    // origin makes that origin's retries due at once, which is not what this case is about)
    const up = new Receiver('127.0.0.1');
    await up.listen();
    const down = new Receiver('127.0.0.1');
    await down.listen();
    await down.close();
    expect(down.port).not.toBe(up.port);
    const vaultA = await t.createVault(owner, { name: 'Down' });
    const vaultB = await t.createVault(owner, { name: 'Up' });
    const subDown = await subscribe(vaultA, down.url, ['record.created']);
    const subUp = await subscribe(vaultB, up.url, ['record.created']);
    up.secrets = [subUp.secret];
    await t.createRecord(owner, vaultA, recordBody({ name: 'Held' }));
    await waitFor(() => pushBack(subDown.id), 30_000, 'the failed attempt');
    // The failing subscription's streak and a success elsewhere: the held delivery keeps its time.
    await t.sql(`UPDATE webhooks SET failing_since = now() WHERE id = $1`, [subUp.id]);
    await t.createRecord(owner, vaultB, recordBody({ name: 'Fine' }));
    await waitFor(async () => (await queue(subUp.id))[0]?.status === 'delivered', 20_000, 'the other endpoint delivered');
    await new Promise((r) => setTimeout(r, 500));
    const [held] = await queue(subDown.id);
    expect(held.status).toBe('pending');
    expect(held.next_attempt_at?.getTime()).toBeGreaterThan(Date.now() + 60_000);
    await up.close();
  });
});
