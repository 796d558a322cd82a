import { randomUUID } from 'node:crypto';
import { jetstreamManager, JetStreamManager } from '@nats-io/jetstream';
import { connect, NatsConnection } from '@nats-io/transport-node';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AccountCreatedEvent, AccountDeletedEvent, AccountUpdatedEvent, SUBJECTS } from '@vault/contracts';
import { EventNamespace } from '@vault/platform/events';
import { TestNatsServer } from '@vault/platform/testing';
import { DataSource } from 'typeorm';
import { AccountEventsRelay } from '../src/capabilities/account-events/account-events.relay';
import { backfillAccountEvents } from '../src/capabilities/account-events/account-events-backfill';
import { auth, createAccount, fullAccount, SHARED_NATS_URL, startUserService, until, UserService } from './support';

const A = '/api/v1/accounts';

interface StreamEvent {
  seq: number;
  subject: string;
  msgId: string | undefined;
  data: Record<string, unknown>;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: Record<string, unknown>;
  published_at: Date | null;
}

/** Every message of the service's account stream, subjects without the namespace. */
async function streamEvents(jsm: JetStreamManager, svc: UserService): Promise<StreamEvent[]> {
  const ns = new EventNamespace(svc.env['EVENTS_NAMESPACE']);
  const info = await jsm.streams.info(svc.accountStream);
  const out: StreamEvent[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(svc.accountStream, { seq });
    if (!m) continue;
    out.push({ seq, subject: ns.unprefix(m.subject), msgId: m.header?.get('Nats-Msg-Id'), data: m.json() });
  }
  return out;
}

const eventsOf = (events: StreamEvent[], accountId: string) => events.filter((e) => e.data['accountId'] === accountId);

function outboxRows(svc: UserService, accountId: string): Promise<OutboxRow[]> {
  return svc.app
    .get(DataSource)
    .query(
      `SELECT id, subject, payload, published_at FROM account_outbox_events WHERE payload->>'accountId' = $1 ORDER BY occurred_at, id`,
      [accountId],
    );
}

/** class-validator's verdict on a payload for the contract class of its subject. */
async function contractErrors(subject: string, data: object): Promise<string[]> {
  const cls = {
    [SUBJECTS.accountCreated]: AccountCreatedEvent,
    [SUBJECTS.accountUpdated]: AccountUpdatedEvent,
    [SUBJECTS.accountDeleted]: AccountDeletedEvent,
  }[subject];
  if (!cls) return [`no contract class for ${subject}`];
  const errors = await validate(plainToInstance(cls, data), { forbidUnknownValues: true });
  return errors.map((e) => e.property);
}

/** A user-service on the shared NATS with its relay running, and a JetStream view of its stream. */
function onSharedNats(prefix: string): { svc: UserService; jsm: JetStreamManager } {
  const ctx = {} as { svc: UserService; jsm: JetStreamManager; nc: NatsConnection };
  beforeAll(async () => {
    ctx.svc = await startUserService(prefix, { NATS_URL: SHARED_NATS_URL, OUTBOX_RELAY_POLL_MS: '100' });
    await ctx.svc.app.get(AccountEventsRelay).ready();
    ctx.nc = await connect({ servers: SHARED_NATS_URL });
    ctx.jsm = await jetstreamManager(ctx.nc);
  });
  afterAll(async () => {
    await ctx.svc?.stop();
    await ctx.nc?.drain();
  });
  return ctx;
}

describe('user-service account events (outbox → ACCOUNT_EVENTS)', () => {
  describe('on the shared NATS', () => {
    const ctx = onSharedNats('user_account_events');

    it('creates the stream in the events namespace with the configured subjects', async () => {
      const { svc, jsm } = ctx;
      const info = await jsm.streams.info(svc.accountStream);
      expect(info.config.subjects).toEqual([`${svc.env['EVENTS_NAMESPACE']}.account.>`]);
      expect(info.config.duplicate_window).toBe(120_000 * 1_000_000);
    });

    it('publishes the full state on create and on every change of names or username, with increasing versions', async () => {
      const { svc, jsm } = ctx;
      const openId = `vault|${randomUUID()}`;
      const token = await svc.token({ sub: openId, tid: 'tenant-events' });
      const body = fullAccount();
      const id = await createAccount(svc, token, body);
      const renamed = `renamed.${randomUUID()}@example.com`;
      const { settings: _settings, agreements: _agreements, ...profile } = body;
      const put = { ...profile, username: renamed, firstName: 'Janet', lastName: 'Roe' };
      await svc.http().put(`${A}/account-id/${id}`).set(auth(token)).send(put).expect(200);
      // outside the projected state: a phone, settings, a consent, a PUT that keeps names and username
      await svc
        .http()
        .post(`${A}/account-id/${id}/phone`)
        .set(auth(token))
        .send({ number: 5, ext: 0, mobile: false })
        .expect(201);
      await svc
        .http()
        .post(`${A}/account-id/${id}/agreements`)
        .set(auth(token))
        .send({ locale: 'en-CA', type: 'privacy_policies', version: 2, consent: true })
        .expect(200);
      await svc
        .http()
        .put(`${A}/account-id/${id}`)
        .set(auth(token))
        .send({ ...put, gender: 'male' })
        .expect(200);
      // then the names again
      const last = await svc
        .http()
        .put(`${A}/account-id/${id}`)
        .set(auth(token))
        .send({ ...put, firstName: 'Jo' })
        .expect(200);

      // the version of the last event is the account's (its ETag), above those of the changes between
      const version = Number(/\.(\d+)"$/.exec(last.headers['etag'])?.[1]);
      expect(version).toBeGreaterThanOrEqual(4);

      await until(async () => eventsOf(await streamEvents(jsm, svc), id).length >= 3, 10_000, 'three events in the stream');
      const events = eventsOf(await streamEvents(jsm, svc), id);
      const state = { accountId: id, tenantId: 'tenant-events', openId, active: true };
      expect(events.map((e) => [e.subject, e.data])).toEqual([
        [
          SUBJECTS.accountCreated,
          {
            ...state,
            username: body['username'],
            firstName: 'Jane',
            lastName: 'Doe',
            version: 1,
            occurredAt: expect.any(String),
          },
        ],
        [
          SUBJECTS.accountUpdated,
          { ...state, username: renamed, firstName: 'Janet', lastName: 'Roe', version: 2, occurredAt: expect.any(String) },
        ],
        [
          SUBJECTS.accountUpdated,
          { ...state, username: renamed, firstName: 'Jo', lastName: 'Roe', version, occurredAt: expect.any(String) },
        ],
      ]);
      for (const e of events) expect(await contractErrors(e.subject, e.data)).toEqual([]);

      // Nats-Msg-Id is the event id of the outbox row, and every row is marked published
      const rows = await outboxRows(svc, id);
      expect(events.map((e) => e.msgId)).toEqual(rows.map((r) => r.id));
      expect(rows.map((r) => r.subject)).toEqual(events.map((e) => e.subject));
      expect(rows.every((r) => r.published_at !== null)).toBe(true);
    });

    it('publishes account.deleted.v1 on deletion: the last username and names, active false, a higher version', async () => {
      const { svc, jsm } = ctx;
      const openId = `vault|${randomUUID()}`;
      const token = await svc.token({ sub: openId, tid: 'tenant-events' });
      const body = fullAccount();
      const id = await createAccount(svc, token, body);
      await svc.http().delete(`${A}/account-id/${id}`).set(auth(token)).expect(200);

      await until(async () => eventsOf(await streamEvents(jsm, svc), id).length >= 2, 10_000, 'created and deleted events');
      const events = eventsOf(await streamEvents(jsm, svc), id);
      expect(events.map((e) => [e.subject, e.data])).toEqual([
        [SUBJECTS.accountCreated, expect.objectContaining({ active: true, version: 1 })],
        [
          SUBJECTS.accountDeleted,
          {
            accountId: id,
            tenantId: 'tenant-events',
            openId,
            username: body['username'],
            firstName: 'Jane',
            lastName: 'Doe',
            active: false,
            version: 2,
            occurredAt: expect.any(String),
          },
        ],
      ]);
      for (const e of events) expect(await contractErrors(e.subject, e.data)).toEqual([]);
      expect(events.map((e) => e.msgId)).toEqual((await outboxRows(svc, id)).map((r) => r.id));
    });

    it('writes the event in the transaction of the change: a change that rolls back leaves no event', async () => {
      const { svc, jsm } = ctx;
      const openId = `vault|${randomUUID()}`;
      const token = await svc.token({ sub: openId });
      // the account row and its created event are written before the invitation is checked
      const refused = await svc
        .http()
        .post(A)
        .set(auth(token))
        .send(fullAccount({ invitationCode: 'NOSUCHCODE' }))
        .expect(400);
      expect(refused.body.code).toBe('invalid_invitation_code');
      const ds = svc.app.get(DataSource);
      expect(await ds.query(`SELECT 1 FROM accounts WHERE open_id = $1`, [openId])).toHaveLength(0);
      expect(await ds.query(`SELECT 1 FROM account_outbox_events WHERE payload->>'openId' = $1`, [openId])).toHaveLength(0);

      // the same inside an Idempotency-Key request, whose changes commit once after the handler
      const keyed = await svc
        .http()
        .post(A)
        .set(auth(token))
        .set('Idempotency-Key', randomUUID())
        .send(fullAccount({ invitationCode: 'NOSUCHCODE' }))
        .expect(400);
      expect(keyed.body.code).toBe('invalid_invitation_code');
      expect(await ds.query(`SELECT 1 FROM account_outbox_events WHERE payload->>'openId' = $1`, [openId])).toHaveLength(0);

      // and what did commit is in the stream, nothing of the refused attempts
      const id = await createAccount(svc, token);
      await until(async () => eventsOf(await streamEvents(jsm, svc), id).length === 1, 10_000, 'created event');
      const all = await streamEvents(jsm, svc);
      expect(all.filter((e) => e.data['openId'] === openId).map((e) => e.data['accountId'])).toEqual([id]);
    });

    it('publishes a re-sent outbox row under the same Nats-Msg-Id: JetStream keeps one copy', async () => {
      const { svc, jsm } = ctx;
      const token = await svc.token();
      const id = await createAccount(svc, token);
      await until(async () => (await outboxRows(svc, id)).every((r) => r.published_at !== null), 10_000, 'published');
      const before = eventsOf(await streamEvents(jsm, svc), id);
      expect(before).toHaveLength(1);
      const relay = svc.app.get(AccountEventsRelay).host;
      const sent = relay.published;

      // as after a crash between JetStream's ack and the mark: the row is relayed again
      await svc.app
        .get(DataSource)
        .query(`UPDATE account_outbox_events SET published_at = NULL WHERE payload->>'accountId' = $1`, [id]);
      await until(async () => (await outboxRows(svc, id)).every((r) => r.published_at !== null), 10_000, 'published again');
      expect(relay.published).toBeGreaterThan(sent);
      expect(eventsOf(await streamEvents(jsm, svc), id)).toEqual(before);
    });
  });

  describe('while NATS is down', () => {
    let nats: TestNatsServer;
    let svc: UserService;

    beforeAll(async () => {
      nats = await TestNatsServer.start();
      svc = await startUserService('user_events_outage', { NATS_URL: nats.url, OUTBOX_RELAY_POLL_MS: '100' });
      await svc.app.get(AccountEventsRelay).ready();
    });
    afterAll(async () => {
      await svc?.stop();
      await nats?.dispose();
    });

    it('commits creates and changes, keeps their events in the outbox and publishes them once NATS is back', async () => {
      const token = await svc.token();
      const before = await createAccount(svc, token);
      await until(
        async () => (await outboxRows(svc, before)).every((r) => r.published_at !== null),
        10_000,
        'published before the outage',
      );

      await nats.stop();
      const other = await svc.token();
      const id = await createAccount(svc, other, fullAccount({ firstName: 'During' }));
      await svc
        .http()
        .put(`${A}/account-id/${before}`)
        .set(auth(token))
        .send({ username: `outage.${randomUUID()}@example.com`, firstName: 'Out', lastName: 'Age' })
        .expect(200);
      await svc.http().get(`${A}/account-id/${id}`).set(auth(other)).expect(200);
      await new Promise((r) => setTimeout(r, 1500));
      const waiting = [...(await outboxRows(svc, id)), ...(await outboxRows(svc, before))].filter((r) => r.published_at === null);
      expect(waiting.map((r) => r.subject).sort()).toEqual([SUBJECTS.accountCreated, SUBJECTS.accountUpdated]);

      await nats.restart();
      const nc = await connect({ servers: nats.url });
      try {
        const jsm = await jetstreamManager(nc);
        // the relay marks its rows published after JetStream acknowledged them: wait for both
        await until(
          async () =>
            (await streamEvents(jsm, svc).catch(() => [])).length === 3 &&
            [...(await outboxRows(svc, before)), ...(await outboxRows(svc, id))].every((r) => r.published_at !== null),
          20_000,
          'the outage events in the stream and their rows marked published',
        );
        const events = await streamEvents(jsm, svc);
        expect(events.map((e) => [e.subject, e.data['accountId'], e.data['firstName'], e.data['version']])).toEqual(
          expect.arrayContaining([
            [SUBJECTS.accountCreated, before, 'Jane', 1],
            [SUBJECTS.accountCreated, id, 'During', 1],
            [SUBJECTS.accountUpdated, before, 'Out', 2],
          ]),
        );
        const rows = [...(await outboxRows(svc, before)), ...(await outboxRows(svc, id))];
        expect(rows.every((r) => r.published_at !== null)).toBe(true);
        expect(events.map((e) => e.msgId).sort()).toEqual(rows.map((r) => r.id).sort());
      } finally {
        await nc.drain();
      }
    });
  });

  describe('backfill', () => {
    const ctx = onSharedNats('user_events_backfill');

    it('sends one event with the current full state per account, in batches: account.deleted for a deleted one', async () => {
      const { svc, jsm } = ctx;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await createAccount(svc, await svc.token(), fullAccount({ firstName: `N${i}` })));
      const renamedToken = await svc.token();
      const renamed = await createAccount(svc, renamedToken);
      await svc
        .http()
        .put(`${A}/account-id/${renamed}`)
        .set(auth(renamedToken))
        .send({ username: `b.${randomUUID()}@example.com`, firstName: 'B', lastName: 'F' })
        .expect(200);
      ids.push(renamed);
      const goneToken = await svc.token();
      const gone = await createAccount(svc, goneToken);
      await svc.http().delete(`${A}/account-id/${gone}`).set(auth(goneToken)).expect(200);
      const ds = svc.app.get(DataSource);
      const unpublished = async () => (await ds.query(`SELECT 1 FROM account_outbox_events WHERE published_at IS NULL`)).length;
      await until(async () => (await unpublished()) === 0, 10_000, 'earlier events published');
      // a consumer deployed now finds nothing earlier: the old events are gone from the stream
      await jsm.streams.purge(svc.accountStream);

      const batches: number[] = [];
      const written = await backfillAccountEvents(ds, 4, (n) => batches.push(n));
      expect(written).toBe(7);
      expect(batches).toEqual([4, 7]);

      await until(async () => (await streamEvents(jsm, svc)).length === 7, 10_000, 'seven backfilled events');
      const events = await streamEvents(jsm, svc);
      expect(
        events
          .filter((e) => e.subject === SUBJECTS.accountUpdated)
          .map((e) => e.data['accountId'])
          .sort(),
      ).toEqual([...ids].sort());
      const stored: { id: string; username: string; first_name: string; version: number; active: boolean }[] = await ds.query(
        `SELECT id, username, first_name, version, active FROM accounts`,
      );
      expect(stored).toHaveLength(7);
      for (const a of stored) {
        const e = events.find((x) => x.data['accountId'] === a.id);
        expect(e?.data).toMatchObject({ username: a.username, firstName: a.first_name, version: a.version, active: a.active });
        expect(await contractErrors(e?.subject ?? '', e?.data ?? {})).toEqual([]);
      }
      expect(events.find((e) => e.data['accountId'] === renamed)?.data).toMatchObject({ firstName: 'B', version: 2 });
      // the deleted account: its erased state, inactive, at the version of its deletion
      expect(events.find((e) => e.data['accountId'] === gone)).toMatchObject({
        subject: SUBJECTS.accountDeleted,
        data: { username: `deleted:${gone}`, firstName: '', lastName: '', active: false, version: 2 },
      });
      // each event has its own id
      expect(new Set(events.map((e) => e.msgId)).size).toBe(7);
    });
  });
});
