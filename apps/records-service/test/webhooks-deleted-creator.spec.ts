import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENT_STREAMS, SUBJECTS } from '@vault/contracts';
import { EventNamespace, ensureStream } from '@vault/platform/events';
import { TestNatsServer } from '@vault/platform/testing';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { ACCOUNT_DIRECTORY_DURABLE } from '../src/capabilities/directory/account-events.handler';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { Caller, recordBody, RecordsTestApp } from './support';
import { INLINE_DELIVERY_ENV, Receiver } from './webhook-receiver';

interface Hook {
  id: string;
  secret: string;
}

/**
 * The webhooks of an account that is deleted (docs/webhooks.md, Disabled subscriptions), with
 * the deletion published by the user module on a private nats-server and taken by the
 * service's account-directory consumer, the vault events relayed, fanned out and delivered for
 * real to receivers that verify every request with `standardwebhooks`. Alice creates a
 * subscription on a vault she transfers to Bob (she stays its editor) and one on a vault she
 * keeps and shares with Bob as editor; Bob has one of his own. Alice's account is deleted.
 */
describe('webhooks of a deleted account (real NATS, PostgreSQL and receivers)', () => {
  jest.setTimeout(120_000);
  const tenantId = 'tenant-a';
  let nats: TestNatsServer;
  let namespace: EventNamespace;
  let nc: NatsConnection;
  let t: RecordsTestApp;
  let alice: Caller, bob: Caller, carol: Caller, dan: Caller;
  let kept: string, given: string;
  let aliceKept: Hook, aliceGiven: Hook, bobs: Hook;
  /** Alice's first receiver (her subscription on the vault she gave Bob), Alice's second (on the vault she kept), Bob's. */
  let r1: Receiver, r2: Receiver, r3: Receiver;

  const accountId = new Map<string, string>();
  /** What user-service's relay publishes (the account's whole state); a new event id each time, as a backfill would. */
  const publishAccount = async (subject: string, c: Caller, version: number, active: boolean) => {
    const body = {
      accountId: accountId.get(c.openId),
      tenantId,
      openId: c.openId,
      username: c.username,
      firstName: 'Ann',
      lastName: 'Lee',
      active,
      version,
      occurredAt: new Date().toISOString(),
    };
    const ack = await jetstream(nc).publish(namespace.subject(subject), JSON.stringify(body), { msgID: randomUUID() });
    return ack.seq;
  };
  /** Until the account directory's consumer has taken (and acknowledged) every account event up to `seq`. */
  const accountEventsTaken = async (seq: number) => {
    const jsm = await jetstreamManager(nc);
    const stream = namespace.stream(EVENT_STREAMS.accountEvents.name);
    await waitFor(
      // the consumer is declared once the transport has started it
      async () =>
        ((await jsm.consumers.info(stream, ACCOUNT_DIRECTORY_DURABLE).catch(() => null))?.ack_floor.stream_seq ?? 0) >= seq,
      30_000,
      `account event ${seq} taken`,
    );
  };
  const deleteAlice = () => publishAccount(SUBJECTS.accountDeleted, alice, 2, false);

  const hooks = (v: string) => `/vault/vault-id/${v}/webhooks`;
  const hook = (v: string, id: string) => `${hooks(v)}/webhook-id/${id}`;
  const subscribe = async (c: Caller, vaultId: string, r: Receiver): Promise<Hook> => {
    const hook = (await t.post(c, hooks(vaultId), { url: r.url, events: ['*'] }).expect(201)).body as Hook;
    r.secretsByVault.set(vaultId, [hook.secret]);
    return hook;
  };
  const share = async (owner: Caller, vaultId: string, c: Caller, role: string): Promise<string> =>
    (await t.post(owner, `/vault/vault-id/${vaultId}/collaborators`, { username: c.username, role }).expect(201)).body.id;
  const deliveries = (webhookId: string) =>
    t.sql<{ event_id: string; status: string; attempts: number; leased: boolean }>(
      `SELECT event_id, status, attempts, leased_until IS NOT NULL AS leased FROM webhook_deliveries
        WHERE webhook_id = $1 ORDER BY stream_seq`,
      [webhookId],
    );
  const settled = (webhookId: string) =>
    waitFor(async () => (await deliveries(webhookId)).every((d) => d.status === 'delivered'), 30_000, `${webhookId} settled`);
  /** The id of the newest event of a vault with this subject (the webhook-id its deliveries carry). */
  const lastEvent = async (vaultId: string, subject: string) =>
    (await t.outbox(subject)).filter((e) => e.vault_id === vaultId).pop()?.id as string;
  const received = (r: Receiver, eventId: string) =>
    waitFor(async () => r.accepted.has(eventId), 30_000, `event ${eventId} received`);
  const webhookRows = () => t.sql(`SELECT * FROM webhooks ORDER BY id`);

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    const ns = uniqueNamespace('hooksgone');
    namespace = new EventNamespace(ns);
    t = await RecordsTestApp.start('records_webhooks_deleted_creator', {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: ns,
      ...INLINE_DELIVERY_ENV,
      // the claim's activity-log entry is read through the API
      ACTIVITY_LOG_WRITER: 'inline',
    });
    nc = await connect({ servers: nats.url });
    // the account events stream is user-service's; it exists before its first event
    await ensureStream(await jetstreamManager(nc), {
      name: namespace.stream(EVENT_STREAMS.accountEvents.name),
      subjects: EVENT_STREAMS.accountEvents.subjects.map((s) => namespace.subject(s)),
      replicas: 1,
      duplicateWindowMs: 120_000,
    });
    await startJetStreamConsumers(t.app);

    [alice, bob, carol, dan] = await Promise.all(
      ['alice', 'bob', 'carol', 'dan'].map((n) => t.caller(tenantId, `${n}-${randomUUID().slice(0, 6)}`)),
    );
    let seq = 0;
    for (const c of [alice, bob, carol, dan]) {
      accountId.set(c.openId, randomUUID());
      seq = await publishAccount(SUBJECTS.accountCreated, c, 1, true);
    }
    await accountEventsTaken(seq);

    [r1, r2, r3] = [new Receiver('127.0.0.1'), new Receiver('127.0.0.1'), new Receiver('127.0.0.1')];
    for (const r of [r1, r2, r3]) await r.listen();
    const PREMIUM = { licenseKey: 'PREMIUM-DEMO-2026' };
    given = await t.createVault(alice, { name: 'Given', ...PREMIUM });
    kept = await t.createVault(alice, { name: 'Kept', ...PREMIUM });
    aliceGiven = await subscribe(alice, given, r1);
    aliceKept = await subscribe(alice, kept, r2);
    const heir = await share(alice, given, bob, 'vault_viewer');
    await t.put(alice, `/vault/vault-id/${given}/owner`, { collaboratorId: heir }).expect(200);
    bobs = await subscribe(bob, given, r3);
    await share(alice, kept, bob, 'vault_editor');
    await share(alice, kept, carol, 'vault_viewer');
    await share(alice, kept, dan, 'vault_info');
    // Bob, now the owner, pauses and resumes Alice's subscription: it stays Alice's (only a deleted creator's is taken over)
    const body = { url: r1.url, events: ['*'] };
    await t.put(bob, hook(given, aliceGiven.id), { ...body, enabled: false }).expect(200);
    await t.put(bob, hook(given, aliceGiven.id), { ...body, enabled: true }).expect(200);
  });
  afterAll(async () => {
    await Receiver.closeAll();
    await nc?.close();
    await t?.stop();
    await nats?.dispose();
  });

  it("stops every subscription the deleted account created, on every vault, at once; the owner's own keep delivering", async () => {
    // before the deletion every subscription delivers
    await t.createRecord(bob, given, recordBody({ name: 'Before' }));
    const before = await lastEvent(given, 'vault.record.created.v1');
    await Promise.all([received(r1, before), received(r3, before)]);
    for (const h of [aliceGiven, aliceKept, bobs]) await settled(h.id);

    // Alice's first receiver goes down: the next event waits for it, pending
    const port = r1.port;
    await r1.close();
    await t.createRecord(bob, given, recordBody({ name: 'While down' }));
    const whileDown = await lastEvent(given, 'vault.record.created.v1');
    await received(r3, whileDown);
    await waitFor(
      async () => (await deliveries(aliceGiven.id)).some((d) => d.event_id === whileDown && d.attempts > 0),
      30_000,
      'a failed attempt',
    );

    await accountEventsTaken(await deleteAlice());

    for (const [vaultId, h] of [
      [given, aliceGiven],
      [kept, aliceKept],
    ] as const) {
      const [row] = await t.sql<{ enabled: boolean; disabled_code: string; disabled_reason: string; disabled_at: Date | null }>(
        `SELECT enabled, disabled_code, disabled_reason, disabled_at FROM webhooks WHERE id = $1`,
        [h.id],
      );
      expect([vaultId, row.enabled, row.disabled_code]).toEqual([vaultId, false, 'creator_account_deleted']);
      expect(row.disabled_reason).toMatch(/account that created it was deleted/);
      expect(row.disabled_at).not.toBeNull();
    }
    // the owner of the vault Alice gave away sees why
    const seen = (await t.get(bob, hooks(given)).expect(200)).body as {
      id: string;
      enabled: boolean;
      disabledCode: string | null;
    }[];
    expect(seen.map((w) => [w.id, w.enabled, w.disabledCode])).toEqual([
      [aliceGiven.id, false, 'creator_account_deleted'],
      [bobs.id, true, null],
    ]);

    // the pending delivery is due now and the receiver is back: still nothing is sent to it
    await waitFor(async () => (await deliveries(aliceGiven.id)).every((d) => !d.leased), 30_000, 'no attempt in flight');
    const held = await deliveries(aliceGiven.id);
    await t.sql(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE webhook_id = $1 AND status = 'pending'`, [
      aliceGiven.id,
    ]);
    const back = new Receiver('127.0.0.1', port);
    back.secretsByVault.set(given, [aliceGiven.secret]);
    await back.listen();
    // changes after the deletion, on both vaults (the one Alice kept by its editor, Bob)
    await t.createRecord(bob, kept, recordBody({ name: 'In the kept vault' }));
    const inKept = await lastEvent(kept, 'vault.record.created.v1');
    await t.createRecord(bob, given, recordBody({ name: 'After' }));
    const after = await lastEvent(given, 'vault.record.created.v1');

    // Bob's subscription got the change, and the ending of Alice's membership, which her own did not
    await received(r3, after);
    const ended = (await t.outbox(SUBJECTS.collaboratorDeleted)).find(
      (e) => e.vault_id === given && e.payload.collaborator.openId === alice.openId,
    );
    expect(r3.accepted.has(ended?.id as string)).toBe(true);
    // The delivery to Bob was claimed after the held one was due: had Alice's subscription been claimable, the
    // held delivery would have been claimed with it or before (claims take the due deliveries oldest first).
    expect(await deliveries(aliceGiven.id)).toEqual(held);
    expect(back.requests).toEqual([]);
    // nothing was stored for Alice's subscriptions since (the fan-out had stored `after`, so `inKept` and the ending before it)
    const since = [ended?.id, inKept, after];
    expect((await deliveries(aliceGiven.id)).filter((d) => since.includes(d.event_id))).toEqual([]);
    expect((await deliveries(aliceKept.id)).filter((d) => since.includes(d.event_id))).toEqual([]);
    expect(r2.requests.filter((r) => since.includes(r.id))).toEqual([]);
    expect([r1, r2, r3, back].flatMap((r) => r.rejected)).toEqual([]);
  });

  it("lets the vault's owner, the claimant of Alice's vault included, see, resume (taking it over) and delete them; no one else", async () => {
    const stranger = await t.caller(tenantId);
    const otherTenant = await t.caller('tenant-b');
    const noToken = { ...stranger, token: '' };
    const settings = { url: r2.url, events: ['*'], enabled: true };
    const attempts = (c: Caller) =>
      [
        ['GET', () => t.get(c, hooks(kept))],
        ['GET one', () => t.get(c, hook(kept, aliceKept.id))],
        ['PUT', () => t.put(c, hook(kept, aliceKept.id), settings)],
        ['DELETE', () => t.delete(c, hook(kept, aliceKept.id))],
      ] as const;
    const refusals = async (callers: [Caller, number][]) => {
      const rows = await webhookRows();
      for (const [c, status] of callers) {
        for (const [route, call] of attempts(c)) {
          const res = await call();
          expect([c.username, route, res.status]).toEqual([c.username, route, status]);
          expect(res.body.requestId).toEqual(expect.any(String));
        }
      }
      expect(await webhookRows()).toEqual(rows);
    };

    // nobody owns the vault Alice kept but her deleted account: its editor is refused until it claims it
    await refusals([
      [bob, 403],
      [carol, 403],
      [dan, 403],
      [stranger, 404],
      [otherTenant, 404],
      [noToken, 401],
    ]);
    await t.post(bob, `/vault/vault-id/${kept}/claim-ownership`).expect(200);
    await refusals([
      [carol, 403],
      [dan, 403],
      [stranger, 404],
      [otherTenant, 404],
      [noToken, 401],
    ]);

    // the claim reads as a claim in the vault's activity log
    await waitFor(
      async () =>
        (await t.get(bob, `/vault/vault-id/${kept}/log?entity=Network&eventType=Update`).expect(200)).body.data.length > 0,
      30_000,
      'the claim logged',
    );
    const log = (await t.get(bob, `/vault/vault-id/${kept}/log?entity=Network&eventType=Update`).expect(200)).body.data;
    expect(log.map((e: { action: string; message: string }) => [e.action, e.message])).toEqual([
      ['claimed', `<b>${bob.username}</b> claimed the ownership of the vault <b>Kept</b> after its owner's account was deleted`],
    ]);
    const es = (await t.get(bob, `/vault/vault-id/${kept}/log?entity=Network&eventType=Update&locale=es-US`).expect(200)).body
      .data;
    expect(es[0].message).toBe(
      `<b>${bob.username}</b> reclamó la propiedad de la bóveda <b>Kept</b> tras la eliminación de la cuenta de su propietario`,
    );

    // the claimant sees the subscription and why it stopped
    const one = (await t.get(bob, hook(kept, aliceKept.id)).expect(200)).body;
    expect(one).toMatchObject({
      enabled: false,
      disabledCode: 'creator_account_deleted',
      disabledReason: expect.stringMatching(/resume it/),
    });
    // changing its settings alone does not resume it
    const edited = (
      await t.put(bob, hook(kept, aliceKept.id), { url: r2.url, events: ['*'], description: 'mine now?' }).expect(200)
    ).body;
    expect(edited).toMatchObject({ enabled: false, disabledCode: 'creator_account_deleted', description: 'mine now?' });
    // resuming takes it over: it answers for Bob's account from then on, and delivers again
    const resumed = (await t.put(bob, hook(kept, aliceKept.id), settings).expect(200)).body;
    expect(resumed).toMatchObject({ enabled: true, disabledCode: null, disabledReason: null, disabledAt: null });
    expect(await t.sql(`SELECT created_by FROM webhooks WHERE id = $1`, [aliceKept.id])).toEqual([{ created_by: bob.openId }]);
    await t.createRecord(bob, kept, recordBody({ name: 'Resumed' }));
    await received(r2, await lastEvent(kept, 'vault.record.created.v1'));

    // the owner of the vault Alice gave away deletes hers
    await t.delete(bob, hook(given, aliceGiven.id)).expect(200);
    await t.get(bob, hook(given, aliceGiven.id)).expect(404);
    expect(await t.sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`, [aliceGiven.id])).toEqual([
      { n: 0 },
    ]);
    expect(r2.rejected).toEqual([]);
  });

  it('takes a repeated deletion event as nothing new: no subscription changes, the one taken over keeps delivering', async () => {
    const rows = await webhookRows();
    const outbox = (await t.outbox()).length;
    await accountEventsTaken(await deleteAlice());
    expect(await webhookRows()).toEqual(rows);
    expect((await t.outbox()).length).toBe(outbox);

    await t.createRecord(bob, kept, recordBody({ name: 'After the repeat' }));
    const event = await lastEvent(kept, 'vault.record.created.v1');
    await received(r2, event);
    expect((await t.get(bob, hook(kept, aliceKept.id)).expect(200)).body).toMatchObject({ enabled: true, disabledCode: null });
  });
});
