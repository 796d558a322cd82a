import { randomUUID } from 'node:crypto';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AccountDeletedEvent, SUBJECTS } from '@vault/contracts';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { REVOCATION_BUCKET } from '@vault/contracts';
import { identityRevocationKey } from '@vault/platform/auth';
import { NATS_CONNECTION } from '@vault/platform/events';
import { TestNatsServer } from '@vault/platform/testing';
import { AccountEventsRelay } from '../src/capabilities/account-events/account-events.relay';
import { auth, createAccount, fullAccount, SHARED_NATS_URL, startUserService, until, UserService } from './support';

const A = '/api/v1/accounts';

interface OutboxRow {
  subject: string;
  payload: Record<string, unknown>;
  published_at: Date | null;
}

describe('user-service account deletion (DELETE /accounts/account-id/{id})', () => {
  let svc: UserService;
  let pg: Client;

  beforeAll(async () => {
    svc = await startUserService('user_deletion', { NATS_URL: SHARED_NATS_URL, OUTBOX_RELAY_POLL_MS: '100' });
    await svc.app.get(AccountEventsRelay).ready();
    pg = new Client({ connectionString: svc.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await svc?.stop();
  });

  const rows = async <T>(sql: string, params: unknown[]): Promise<T[]> => (await pg.query(sql, params)).rows as T[];
  const accountRow = async (id: string) => (await rows<Record<string, unknown>>('SELECT * FROM accounts WHERE id = $1', [id]))[0];
  const outbox = (id: string) =>
    rows<OutboxRow>(
      `SELECT subject, payload, published_at FROM account_outbox_events WHERE payload->>'accountId' = $1 ORDER BY occurred_at, id`,
      [id],
    );
  const count = async (table: string, id: string) =>
    Number((await rows<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE account_id = $1`, [id]))[0].n);

  /** An identity with its account (one phone, settings, one consent), a token of it and the account id. */
  async function holder(tid = 'tenant-a') {
    const sub = `vault|${randomUUID()}`;
    const token = await svc.token({ sub, tid });
    const body = fullAccount();
    const id = await createAccount(svc, token, body);
    return { sub, tid, token, id, username: body['username'] as string, fresh: () => svc.token({ sub, tid }) };
  }

  /**
   * What the service does once the identity's revocation entry has aged out of the
   * bucket (24 h, as long as any token lives): the entry is purged, and the test waits
   * until a new token of the identity is no longer refused as revoked.
   */
  async function revocationAgedOut(h: { sub: string; tid: string; id: string; fresh: () => Promise<string> }) {
    const kv = await new Kvm(svc.app.get<NatsConnection>(NATS_CONNECTION)).open(REVOCATION_BUCKET);
    await kv.purge(identityRevocationKey(h.tid, h.sub));
    const t = await h.fresh();
    await until(async () => (await svc.http().get(`${A}/account-id/${h.id}`).set(auth(t))).status !== 401, 5000, 'the purge');
    return t;
  }

  it('deletes the caller’s account: 200 empty body, the row inactive and erased, account.deleted.v1 with the last state', async () => {
    const h = await holder();
    await svc
      .http()
      .post(`${A}/account-id/${h.id}/mfa`)
      .set(auth(h.token))
      .send({ type: 'email', notificationType: 'mfaEmail' })
      .expect(201);
    expect(await count('mfa_codes', h.id)).toBe(1);
    const before = await accountRow(h.id);

    const res = await svc.http().delete(`${A}/account-id/${h.id}`).set(auth(h.token)).expect(200);
    expect(res.text).toBe('');
    expect(res.headers.etag).toBeUndefined();

    const after = await accountRow(h.id);
    expect(after).toMatchObject({
      id: h.id,
      open_id: h.sub,
      tenant_id: h.tid,
      active: false,
      version: (before['version'] as number) + 1,
      username: `deleted:${h.id}`,
      first_name: '',
      last_name: '',
      profile_photo: null,
      date_of_birth: null,
      gender: null,
      marital_status: null,
      primary_residence: null,
      emails: [],
      phones: [],
      referral_code: 'REF-1',
    });
    expect(after['deleted_at']).toBeInstanceOf(Date);
    // settings and MFA codes go with it; the consent history stays as the record of consents given
    expect(await count('account_settings', h.id)).toBe(0);
    expect(await count('mfa_codes', h.id)).toBe(0);
    expect(await count('agreements', h.id)).toBe(1);

    // the event carries the state the account had, inactive, at the new version
    const events = await outbox(h.id);
    expect(events.map((e) => e.subject)).toEqual([SUBJECTS.accountCreated, SUBJECTS.accountDeleted]);
    const deleted = events[1].payload;
    expect(deleted).toEqual({
      accountId: h.id,
      tenantId: h.tid,
      openId: h.sub,
      username: h.username,
      firstName: 'Jane',
      lastName: 'Doe',
      active: false,
      version: after['version'],
      occurredAt: expect.any(String),
    });
    expect(deleted['version']).toBeGreaterThan(events[0].payload['version'] as number);
    const errors = await validate(plainToInstance(AccountDeletedEvent, deleted), { forbidUnknownValues: true });
    expect(errors.map((e) => e.property)).toEqual([]);
    // and the relay publishes it
    await until(async () => (await outbox(h.id)).every((e) => e.published_at !== null), 10_000, 'deleted event published');
  });

  it('ends the token’s session, and every read of the account is 404 afterwards', async () => {
    const h = await holder();
    await svc.http().delete(`${A}/account-id/${h.id}`).set(auth(h.token)).expect(200);

    // the token used is revoked, as by logout
    const revoked = await svc
      .http()
      .get(`${A}/open-id/${encodeURIComponent(h.sub)}`)
      .set(auth(h.token))
      .expect(401);
    expect(revoked.body.detail).toMatch(/revoked/);

    // every token of the identity is refused, a new one too (the developer module issues none any more)
    const refused = await svc
      .http()
      .get(`${A}/account-id/${h.id}`)
      .set(auth(await h.fresh()))
      .expect(401);
    expect(refused.body).toMatchObject({ code: 'unauthorized', detail: expect.stringMatching(/revoked/) });

    // once that revocation has aged out, a token of the identity still finds nothing
    const t = await revocationAgedOut(h);
    const reads: Array<[string, string]> = [
      ['get', `${A}/account-id/${h.id}`],
      ['get', `${A}/username/${encodeURIComponent(h.username)}`],
      ['get', `${A}/username/${encodeURIComponent(`deleted:${h.id}`)}`],
      ['get', `${A}/open-id/${encodeURIComponent(h.sub)}`],
      ['get', `${A}/account-id/${h.id}/settings`],
      ['get', `${A}/account-id/${h.id}/agreements`],
      ['get', `${A}/account-id/${h.id}/mfa/mfa-code/123456`],
      ['put', `${A}/account-id/${h.id}`],
      ['put', `${A}/account-id/${h.id}/settings`],
      ['post', `${A}/account-id/${h.id}/email`],
      ['post', `${A}/account-id/${h.id}/phone`],
      ['post', `${A}/account-id/${h.id}/mfa`],
      ['delete', `${A}/account-id/${h.id}/phone/phone-number/6135550100`],
      ['delete', `${A}/account-id/${h.id}`],
    ];
    const bodies: Record<string, object> = {
      [`put ${A}/account-id/${h.id}`]: { username: `again.${randomUUID()}@example.com`, firstName: 'A', lastName: 'B' },
      [`put ${A}/account-id/${h.id}/settings`]: fullAccount()['settings'] as object,
      [`post ${A}/account-id/${h.id}/email`]: { address: `again.${randomUUID()}@example.com` },
      [`post ${A}/account-id/${h.id}/phone`]: { number: 6135550199, ext: 0, mobile: true },
      [`post ${A}/account-id/${h.id}/mfa`]: { type: 'email', notificationType: 'mfaEmail' },
    };
    for (const [method, path] of reads) {
      const res = await svc
        .http()
        [method as 'get'](path)
        .set(auth(t))
        .send(bodies[`${method} ${path}`] ?? {});
      expect({ route: `${method} ${path}`, status: res.status, code: res.body.code }).toEqual({
        route: `${method} ${path}`,
        status: 404,
        code: 'not_found',
      });
    }
    const check = await svc
      .http()
      .get(`${A}/username/${encodeURIComponent(h.username)}/check`)
      .set(auth(t))
      .expect(200);
    expect(check.body.exists).toBe(false);
    // nothing of those attempts changed the row or wrote an event
    expect((await accountRow(h.id))['version']).toBe(2);
    expect((await outbox(h.id)).map((e) => e.subject)).toEqual([SUBJECTS.accountCreated, SUBJECTS.accountDeleted]);
  });

  it('keeps the identity bound: a new account for it is 409 account_exists; its username is free for others', async () => {
    const h = await holder();
    await svc.http().delete(`${A}/account-id/${h.id}`).set(auth(h.token)).expect(200);
    await svc
      .http()
      .post(A)
      .set(auth(await h.fresh()))
      .send(fullAccount())
      .expect(401);
    const again = await svc
      .http()
      .post(A)
      .set(auth(await revocationAgedOut(h)))
      .send(fullAccount())
      .expect(409);
    expect(again.body.code).toBe('account_exists');

    const other = await svc.token({ tid: h.tid });
    const id = await createAccount(svc, other, fullAccount({ username: h.username.toUpperCase() }));
    const res = await svc.http().get(`${A}/account-id/${id}`).set(auth(other)).expect(200);
    expect(res.body.username).toBe(h.username.toUpperCase());
  });

  it('answers 404 to another identity, the same openId in another tenant and a malformed id, changing nothing', async () => {
    const h = await holder();
    const before = await accountRow(h.id);
    const strangers = [await svc.token({ tid: h.tid }), await svc.token({ sub: h.sub, tid: 'tenant-other' })];
    for (const t of strangers) {
      const res = await svc.http().delete(`${A}/account-id/${h.id}`).set(auth(t)).expect(404);
      expect(res.body.code).toBe('not_found');
      // the stranger's token is not revoked by the refusal
      await svc.http().get(`${A}/username/x/check`).set(auth(t)).expect(200);
    }
    await svc.http().delete(`${A}/account-id/not-a-uuid`).set(auth(h.token)).expect(404);
    expect(await accountRow(h.id)).toEqual(before);
    expect((await outbox(h.id)).map((e) => e.subject)).toEqual([SUBJECTS.accountCreated]);
    await svc.http().get(`${A}/account-id/${h.id}`).set(auth(h.token)).expect(200);
  });

  it('takes If-Match: a stale version is 412 and changes nothing (token kept); the current one deletes', async () => {
    const h = await holder();
    await svc
      .http()
      .put(`${A}/account-id/${h.id}`)
      .set(auth(h.token))
      .send({ username: h.username, firstName: 'Ann', lastName: 'Lee' })
      .expect(200);
    const before = await accountRow(h.id);
    for (const stale of [`"${h.id}.1"`, 'not-a-tag', `W/"${h.id}.2"`]) {
      const res = await svc.http().delete(`${A}/account-id/${h.id}`).set(auth(h.token)).set('If-Match', stale).expect(412);
      expect(res.body).toMatchObject({ status: 412, code: 'precondition_failed' });
    }
    expect(await accountRow(h.id)).toEqual(before);
    expect(await count('account_settings', h.id)).toBe(1);
    expect((await outbox(h.id)).map((e) => e.subject)).toEqual([SUBJECTS.accountCreated, SUBJECTS.accountUpdated]);

    const etag = (await svc.http().get(`${A}/account-id/${h.id}`).set(auth(h.token)).expect(200)).headers.etag;
    expect(etag).toBe(`"${h.id}.2"`);
    await svc.http().delete(`${A}/account-id/${h.id}`).set(auth(h.token)).set('If-Match', etag).expect(200);
    const events = await outbox(h.id);
    expect(events.map((e) => [e.subject, e.payload['version'], e.payload['firstName']])).toEqual([
      [SUBJECTS.accountCreated, 1, 'Jane'],
      [SUBJECTS.accountUpdated, 2, 'Ann'],
      [SUBJECTS.accountDeleted, 3, 'Ann'],
    ]);
  });

  it('two deletes racing: one 200, the other 404 (or 401 once its token is revoked); one deleted event', async () => {
    const h = await holder();
    const second = await h.fresh();
    const answers = await Promise.all([h.token, second].map((t) => svc.http().delete(`${A}/account-id/${h.id}`).set(auth(t))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses[0]).toBe(200);
    expect([401, 404]).toContain(statuses[1]);
    expect((await outbox(h.id)).filter((e) => e.subject === SUBJECTS.accountDeleted)).toHaveLength(1);
  });

  it('answers 401 without a valid token', async () => {
    const h = await holder();
    await svc.http().delete(`${A}/account-id/${h.id}`).expect(401);
    await svc.http().delete(`${A}/account-id/${h.id}`).set(auth('junk')).expect(401);
    expect((await accountRow(h.id))['active']).toBe(true);
  });

  it('is described in OpenAPI with If-Match and the 412/428 answers', async () => {
    const doc = (await svc.http().get('/api/v1/openapi.json').expect(200)).body;
    const op = doc.paths['/accounts/account-id/{id}'].delete;
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['id', 'If-Match']));
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '404', '412', '428']));
    expect(op.responses['200'].headers?.ETag).toBeUndefined();
  });
});

describe('user-service account deletion with REQUIRE_IF_MATCH=true', () => {
  let svc: UserService;

  beforeAll(async () => {
    svc = await startUserService('user_deletion_etag', { REQUIRE_IF_MATCH: 'true' });
  });
  afterAll(async () => {
    await svc?.stop();
    delete process.env.REQUIRE_IF_MATCH;
  });

  it('answers 428 precondition_required without If-Match and deletes nothing; with it, 200', async () => {
    const sub = `vault|${randomUUID()}`;
    const token = await svc.token({ sub });
    const id = await createAccount(svc, token);
    const res = await svc.http().delete(`${A}/account-id/${id}`).set(auth(token)).expect(428);
    expect(res.body).toMatchObject({ status: 428, code: 'precondition_required' });
    const etag = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).expect(200)).headers.etag;
    await svc.http().delete(`${A}/account-id/${id}`).set(auth(token)).set('If-Match', etag).expect(200);
    await svc
      .http()
      .get(`${A}/account-id/${id}`)
      .set(auth(await svc.token({ sub })))
      .expect(401);
  });
});

describe('user-service account deletion while NATS is down', () => {
  let nats: TestNatsServer;
  let svc: UserService;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    svc = await startUserService('user_deletion_outage', { NATS_URL: nats.url });
  });
  afterAll(async () => {
    await svc?.stop();
    await nats?.dispose();
  });

  it('answers 503 when the identity cannot be revoked and deletes nothing; deletes once NATS is back', async () => {
    const sub = `vault|${randomUUID()}`;
    const token = await svc.token({ sub });
    const id = await createAccount(svc, token);
    await nats.stop();
    const res = await svc.http().delete(`${A}/account-id/${id}`).set(auth(token)).expect(503);
    expect(res.body.code).toBe('service_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    const kept = await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).expect(200);
    expect(kept.headers.etag).toBe(`"${id}.1"`);
    const pending = await svc.app
      .get(DataSource)
      .query(`SELECT subject FROM account_outbox_events WHERE payload->>'accountId' = $1`, [id]);
    expect(pending.map((r: { subject: string }) => r.subject)).toEqual([SUBJECTS.accountCreated]);

    await nats.restart();
    await until(
      async () => (await svc.http().delete(`${A}/account-id/${id}`).set(auth(token))).status === 200,
      20_000,
      'deletion once NATS is back',
    );
    // every token of the identity is revoked with the deletion
    await svc
      .http()
      .get(`${A}/account-id/${id}`)
      .set(auth(await svc.token({ sub })))
      .expect(401);
  });
});
