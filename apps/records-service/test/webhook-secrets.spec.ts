import { INestApplication, Logger } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { TestNatsServer } from '@vault/platform/testing';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { WebhookRepository } from '../src/persistence/webhooks/webhook.repository';
import { parseKeyring, SecretBox, SecretUnreadableError } from '../src/features/webhooks/secret-box/secret-box';
import { SecretReseal } from '../src/features/webhooks/secret-box/secret-reseal';
import { WebhookSecrets } from '../src/features/webhooks/secret-box/webhook-secrets';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { Caller, recordBody, RecordsTestApp } from './support';
import { Receiver } from './webhook-receiver';

const K1 = `k1:${randomBytes(32).toString('base64')}`;
const K2 = `k2:${randomBytes(32).toString('base64')}`;
const K3 = `k3:${randomBytes(32).toString('base64')}`;

/** Webhook signing secrets encrypted at rest (docs/webhooks.md, Secrets at rest), against real PostgreSQL, NATS and receivers. */
describe('webhook secrets at rest', () => {
  jest.setTimeout(120_000);
  let nats: TestNatsServer;
  let t: RecordsTestApp;
  let owner: Caller;
  let receiver: Receiver;
  /** Other instances a case boots: closed after it even when it stops half-way. */
  const instances = new Set<INestApplication>();

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    t = await RecordsTestApp.start('records_webhook_secrets', {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('secrets'),
      OUTBOX_RELAY_POLL_MS: '100',
      ACTIVITY_LOG_RELAY: 'inline',
      WEBHOOK_DISPATCHER: 'inline',
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE_MS: '200,200',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
      WEBHOOK_RESPONSE_TIMEOUT_MS: '2000',
      // After a key rotation: k2 encrypts, k1 (the key before) still decrypts.
      WEBHOOK_SECRET_KEYS: `${K2},${K1}`,
    });
    await startJetStreamConsumers(t.app);
    receiver = new Receiver('127.0.0.1');
    await receiver.listen();
  });
  beforeEach(async () => {
    owner = await t.caller();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    for (const app of instances) await app.close();
    instances.clear();
  });
  afterAll(async () => {
    await Receiver.closeAll();
    await t?.stop();
    await nats?.dispose();
  });

  const hooks = (v: string) => `/vault/vault-id/${v}/webhooks`;
  const subscribe = async (vaultId: string) =>
    (await t.post(owner, hooks(vaultId), { url: receiver.url, events: ['record.created'] }).expect(201)).body as {
      id: string;
      secret: string;
    };
  const stored = async (id: string) =>
    (
      await t.sql<{ secret: string; previous_secret: string | null; updated_at: Date }>(
        `SELECT secret, previous_secret, updated_at FROM webhooks WHERE id = $1`,
        [id],
      )
    )[0];
  const deliveries = (webhookId: string) =>
    t.sql<{ id: string; event_id: string; status: string; attempts: number; last_error: string | null }>(
      `SELECT id, event_id, status, attempts, last_error FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY stream_seq`,
      [webhookId],
    );
  const settled = (webhookId: string, n: number) =>
    waitFor(
      async () => {
        const rows = await deliveries(webhookId);
        return rows.length === n && rows.every((d) => d.status !== 'pending');
      },
      60_000,
      `${n} settled deliveries of ${webhookId}`,
    );
  /** Makes a record (one record.created event) and waits for its delivery to settle; answers the deliveries so far. */
  const oneEvent = async (vaultId: string, webhookId: string) => {
    const n = (await deliveries(webhookId)).length + 1;
    await t.createRecord(owner, vaultId, recordBody({ name: `Record ${n}` }));
    await settled(webhookId, n);
    return deliveries(webhookId);
  };
  /** The requests the receiver accepted for a vault, each verified here again with every secret given. */
  const verifiedWith = (vaultId: string, secrets: string[]) => {
    const accepted = [...receiver.accepted.values()].filter((r) => r.event.vaultid === vaultId);
    for (const r of accepted) {
      const headers = { 'webhook-id': r.id, 'webhook-timestamp': r.timestamp, 'webhook-signature': r.signature };
      for (const s of secrets) expect(() => new Webhook(s).verify(r.body, headers)).not.toThrow();
    }
    return accepted.map((r) => r.id);
  };
  /** Another instance on the same database, delivering nothing; it re-encrypts at start. */
  const instance = async (overrides: Record<string, string>) => {
    const app = await t.bootInstance({
      WEBHOOK_DISPATCHER: 'off',
      ACTIVITY_LOG_RELAY: 'off',
      ACTIVITY_LOG_WRITER: 'off',
      ...overrides,
    });
    instances.add(app);
    return app;
  };
  const sealedWith = (keyId: string, value: string | null, plain: string) => {
    expect(value).toMatch(new RegExp(`^v1:${keyId}:[A-Za-z0-9_-]+$`));
    expect(value).not.toContain(plain.slice('whsec_'.length));
  };

  it('a key rotation (new key first, old second) keeps rows of the old key signing and re-encrypts them at start', async () => {
    // A subscription made while k1 alone was the ring.
    const before = await instance({ WEBHOOK_SECRET_KEYS: K1 });
    const vaultId = await t.createVault(owner, { name: 'Rotation' });
    const sub = (
      await request(before.getHttpServer())
        .post(`/api/v1${hooks(vaultId)}`)
        .set('Authorization', `Bearer ${owner.token}`)
        .send({ url: receiver.url, events: ['record.created'] })
        .expect(201)
    ).body as { id: string; secret: string };
    sealedWith('k1', (await stored(sub.id)).secret, sub.secret);
    receiver.secretsByVault.set(vaultId, [sub.secret]);

    // This instance (k2 first, k1 second) signs with it as it is.
    expect((await oneEvent(vaultId, sub.id)).map((d) => d.status)).toEqual(['delivered']);

    // An instance starting with the new ring re-encrypts it under k2; it still signs.
    const { updated_at } = await stored(sub.id);
    const after = await instance({});
    await waitFor(async () => (await stored(sub.id)).secret.startsWith('v1:k2:'), 30_000, 'the secret re-encrypted under k2');
    const row = await stored(sub.id);
    sealedWith('k2', row.secret, sub.secret);
    expect(row.updated_at).toEqual(updated_at);
    expect((await oneEvent(vaultId, sub.id)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    expect(verifiedWith(vaultId, [sub.secret])).toHaveLength(2);
    // Nothing left to do: another pass changes nothing.
    expect(await after.get(SecretReseal).run()).toBe(0);
    expect(receiver.rejected).toEqual([]);
  });

  it('stores no plain secret after create and after rotate; the API shows each new secret once', async () => {
    const vaultId = await t.createVault(owner, { name: 'At rest' });
    const sub = await subscribe(vaultId);
    const created = await stored(sub.id);
    sealedWith('k2', created.secret, sub.secret);
    expect(created.previous_secret).toBeNull();

    const rotated = (await t.post(owner, `${hooks(vaultId)}/webhook-id/${sub.id}/rotate-secret`).expect(200)).body;
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(sub.secret);
    const row = await stored(sub.id);
    sealedWith('k2', row.secret, rotated.secret);
    sealedWith('k2', row.previous_secret, sub.secret);
    expect(row.previous_secret).toBe(created.secret);
    const everything = JSON.stringify(await t.sql(`SELECT * FROM webhooks WHERE id = $1`, [sub.id]));
    for (const s of [sub.secret, rotated.secret]) expect(everything).not.toContain(s.slice('whsec_'.length));

    const one = await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`).expect(200);
    const list = await t.get(owner, hooks(vaultId)).expect(200);
    expect(one.body.secret).toBeUndefined();
    expect(list.body.every((w: object) => !('secret' in w))).toBe(true);

    // Both keys of the overlap sign, each verifying on its own with the standardwebhooks package.
    receiver.secretsByVault.set(vaultId, [sub.secret, rotated.secret]);
    expect((await oneEvent(vaultId, sub.id)).map((d) => d.status)).toEqual(['delivered']);
    expect(verifiedWith(vaultId, [sub.secret, rotated.secret])).toHaveLength(1);
    expect(receiver.rejected).toEqual([]);
  });

  it('a legacy plain-text row keeps signing, and an instance starting re-encrypts it', async () => {
    const vaultId = await t.createVault(owner, { name: 'Legacy' });
    const sub = await subscribe(vaultId);
    // A row from before encryption: both secrets in plain text, the previous one still in its overlap.
    const previous = `whsec_${randomBytes(32).toString('base64')}`;
    await t.sql(
      `UPDATE webhooks SET secret = $2, previous_secret = $3, previous_secret_expires_at = now() + interval '1 hour' WHERE id = $1`,
      [sub.id, sub.secret, previous],
    );
    receiver.secretsByVault.set(vaultId, [sub.secret, previous]);
    expect((await oneEvent(vaultId, sub.id)).map((d) => d.status)).toEqual(['delivered']);

    const after = await instance({});
    await waitFor(async () => (await stored(sub.id)).secret.startsWith('v1:'), 30_000, 'the plain-text secret re-encrypted');
    const row = await stored(sub.id);
    sealedWith('k2', row.secret, sub.secret);
    sealedWith('k2', row.previous_secret, previous);
    expect((await oneEvent(vaultId, sub.id)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
    expect(verifiedWith(vaultId, [sub.secret, previous])).toHaveLength(2);
    expect(await after.get(SecretReseal).run()).toBe(0);
    expect(receiver.rejected).toEqual([]);
  });

  it('a secret moved to another row or altered is not used: the delivery is retried and fails, not counted against the receiver; the reason is logged; a rotation recovers', async () => {
    const vaultA = await t.createVault(owner, { name: 'Source' });
    const vaultMoved = await t.createVault(owner, { name: 'Moved' });
    const vaultAltered = await t.createVault(owner, { name: 'Altered' });
    const source = await subscribe(vaultA);
    const moved = await subscribe(vaultMoved);
    const altered = await subscribe(vaultAltered);
    await t.sql(`UPDATE webhooks SET secret = (SELECT secret FROM webhooks WHERE id = $1) WHERE id = $2`, [source.id, moved.id]);
    const [v, keyId, payload] = (await stored(altered.id)).secret.split(':');
    const bytes = Buffer.from(payload, 'base64url');
    bytes[20] ^= 1;
    await t.sql(`UPDATE webhooks SET secret = $2 WHERE id = $1`, [altered.id, `${v}:${keyId}:${bytes.toString('base64url')}`]);
    receiver.secretsByVault.set(vaultA, [source.secret]).set(vaultMoved, [moved.secret]).set(vaultAltered, [altered.secret]);
    // The altered one's receiver had been failing for longer than WEBHOOK_DISABLE_AFTER_MS (5 days) before.
    await t.sql(`UPDATE webhooks SET failing_since = now() - interval '6 days' WHERE id = $1`, [altered.id]);
    const streak = async (id: string) =>
      (
        await t.sql<{ enabled: boolean; failing_since: Date | null }>(
          `SELECT enabled, failing_since FROM webhooks WHERE id = $1`,
          [id],
        )
      )[0];
    const alteredStreak = await streak(altered.id);
    const errors = jest.spyOn(Logger.prototype, 'error');

    for (const [vaultId, sub, before] of [
      [vaultMoved, moved, { enabled: true, failing_since: null }],
      [vaultAltered, altered, alteredStreak],
    ] as const) {
      const [d] = await oneEvent(vaultId, sub.id);
      // Given up after the schedule's attempts, never sent.
      expect(d).toMatchObject({ status: 'failed', attempts: 3 });
      expect(d.last_error).toBe(
        'not sent: the delivery could not be signed (a problem of the service, not of the receiver); it is retried along the retry schedule',
      );
      expect(receiver.requests.filter((r) => r.event.vaultid === vaultId)).toEqual([]);
      // Not the receiver's failure: no streak started or continued, not disabled.
      expect(await streak(sub.id)).toEqual(before);
      // The reason, with the key id, is in the service's log only.
      expect(errors.mock.calls.map(([m]) => String(m))).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `of webhook ${sub.id} not sent: the signing secret does not decrypt with key "k2" \\(the stored value was altered or belongs to another webhook\\)$`,
          ),
        ),
      );
      const log = await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}/deliveries`).expect(200);
      expect(log.body.data[0]).toMatchObject({ status: 'failed', lastStatusCode: null, lastError: d.last_error });
      await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`).expect(200);
      await t.get(owner, hooks(vaultId)).expect(200);
      await t.put(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`, { url: receiver.url, events: ['record.created'] }).expect(200);
    }
    // The dispatcher goes on: the row the secret was copied from still delivers.
    expect((await oneEvent(vaultA, source.id)).map((d) => d.status)).toEqual(['delivered']);
    expect(verifiedWith(vaultA, [source.secret])).toHaveLength(1);

    // The owner rotates the secret: the new one signs (the unreadable previous one is left out), and a redelivery goes through.
    const rotated = (await t.post(owner, `${hooks(vaultAltered)}/webhook-id/${altered.id}/rotate-secret`).expect(200)).body;
    receiver.secretsByVault.set(vaultAltered, [rotated.secret]);
    const [failed] = await deliveries(altered.id);
    await t
      .post(owner, `${hooks(vaultAltered)}/webhook-id/${altered.id}/deliveries/delivery-id/${failed.id}/redeliver`)
      .expect(202);
    await waitFor(
      async () => (await deliveries(altered.id))[0].status === 'delivered',
      60_000,
      'the redelivery signed with the new secret',
    );
    expect(verifiedWith(vaultAltered, [rotated.secret])).toEqual([failed.event_id]);
    expect(receiver.rejected).toEqual([]);
  });

  it('re-encrypts each value of a row on its own and clears a previous secret whose overlap has ended', async () => {
    const K0 = `k0:${randomBytes(32).toString('base64')}`;
    const removedKey = new SecretBox(parseKeyring(K0));
    const oldKey = new SecretBox(parseKeyring(K1));
    const plain = () => `whsec_${randomBytes(32).toString('base64')}`;
    const [expired, overlapping, lost] = await Promise.all(
      ['Expired previous', 'Unreadable previous', 'Unreadable current'].map(async (name) =>
        subscribe(await t.createVault(owner, { name })),
      ),
    );
    const set = (id: string, secret: string, previous: string, expiresIn: string) =>
      t.sql(
        `UPDATE webhooks SET secret = $2, previous_secret = $3, previous_secret_expires_at = now() + $4::interval WHERE id = $1`,
        [id, secret, previous, expiresIn],
      );
    // Current secret under the old key k1; previous one under k0, removed from the ring after its overlap ended.
    await set(expired.id, oldKey.seal(expired.secret, expired.id), removedKey.seal(plain(), expired.id), '-1 hour');
    // The same, the previous secret still in its overlap.
    const unreadablePrevious = removedKey.seal(plain(), overlapping.id);
    await set(overlapping.id, oldKey.seal(overlapping.secret, overlapping.id), unreadablePrevious, '1 hour');
    // Current secret under k0; previous one in plain text, in its overlap.
    const unreadableCurrent = removedKey.seal(lost.secret, lost.id);
    const lostPrevious = plain();
    await set(lost.id, unreadableCurrent, lostPrevious, '1 hour');
    const expiry = (id: string) =>
      t
        .sql<{ expires: Date | null }>(`SELECT previous_secret_expires_at AS expires FROM webhooks WHERE id = $1`, [id])
        .then((r) => r[0].expires);
    const overlapEnds = await expiry(overlapping.id);

    const errors = jest.spyOn(Logger.prototype, 'error');
    const logged = (id: string) => errors.mock.calls.map(([m]) => String(m)).filter((m) => m.includes(id));
    const reseal = t.app.get(SecretReseal);
    const box = t.app.get(WebhookSecrets).box;
    try {
      await reseal.run();
      const e = await stored(expired.id);
      sealedWith('k2', e.secret, expired.secret);
      expect(box.open(e.secret, expired.id)).toBe(expired.secret);
      expect(e.previous_secret).toBeNull();
      expect(await expiry(expired.id)).toBeNull();
      expect(logged(expired.id)).toEqual([]);

      const o = await stored(overlapping.id);
      sealedWith('k2', o.secret, overlapping.secret);
      expect(box.open(o.secret, overlapping.id)).toBe(overlapping.secret);
      expect(o.previous_secret).toBe(unreadablePrevious);
      expect(await expiry(overlapping.id)).toEqual(overlapEnds);
      expect(logged(overlapping.id)).toEqual([expect.stringMatching(/previous secret: .*key "k0".*left as it is/)]);

      const l = await stored(lost.id);
      expect(l.secret).toBe(unreadableCurrent);
      sealedWith('k2', l.previous_secret, lostPrevious);
      expect(box.open(l.previous_secret as string, lost.id)).toBe(lostPrevious);
      expect(logged(lost.id)).toEqual([expect.stringMatching(/: secret: .*key "k0".*left as it is/)]);

      // A second pass changes none of them (the unreadable values are only logged again).
      // one at a time: the suite's SQL client takes one query at a time
      const storedAll = async () => {
        const rows = [];
        for (const w of [expired, overlapping, lost]) rows.push(await stored(w.id));
        return rows;
      };
      const rows = await storedAll();
      await reseal.run();
      expect(await storedAll()).toEqual(rows);
      expect(logged(expired.id)).toEqual([]);
    } finally {
      errors.mockRestore();
    }
  });

  it('an update or a rotation racing the re-encryption at start keeps the re-encrypted secrets', async () => {
    const oldKey = new SecretBox(parseKeyring(K1));
    const vaultId = await t.createVault(owner, { name: 'Raced' });
    const sub = await subscribe(vaultId);
    const previous = `whsec_${randomBytes(32).toString('base64')}`;
    /** Both secrets under k1 (the key before), the previous one in its overlap: a pass re-encrypts them under k2. */
    const underOldKey = () =>
      t.sql(
        `UPDATE webhooks SET secret = $2, previous_secret = $3, previous_secret_expires_at = now() + interval '1 hour' WHERE id = $1`,
        [sub.id, oldKey.seal(sub.secret, sub.id), oldKey.seal(previous, sub.id)],
      );
    const repository = t.app.get(WebhookRepository);
    const reseal = t.app.get(SecretReseal);
    /** The route's next read of the subscription is followed by a re-encryption pass, before the route writes; answers the row the pass left. */
    const resealAfterRead = () => {
      const find = repository.find.bind(repository);
      let resealed: Awaited<ReturnType<typeof stored>> | undefined;
      jest.spyOn(repository, 'find').mockImplementationOnce(async (...args) => {
        const read = await find(...args);
        await reseal.run();
        resealed = await stored(sub.id);
        sealedWith('k2', resealed.secret, sub.secret);
        return read;
      });
      return () => resealed;
    };

    await underOldKey();
    const updateRaced = resealAfterRead();
    const put = await t
      .put(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`, {
        url: receiver.url,
        events: ['record.created'],
        description: 'Raced',
      })
      .expect(200);
    expect(put.body).toMatchObject({ id: sub.id, description: 'Raced', enabled: true });
    expect((await t.get(owner, `${hooks(vaultId)}/webhook-id/${sub.id}`).expect(200)).body.description).toBe('Raced');
    const afterUpdate = await stored(sub.id);
    expect(afterUpdate.secret).toBe(updateRaced()?.secret);
    expect(afterUpdate.previous_secret).toBe(updateRaced()?.previous_secret);
    sealedWith('k2', afterUpdate.previous_secret, previous);

    await underOldKey();
    const rotationRaced = resealAfterRead();
    const rotated = (await t.post(owner, `${hooks(vaultId)}/webhook-id/${sub.id}/rotate-secret`).expect(200)).body;
    const afterRotation = await stored(sub.id);
    // The previous secret is the current one as the pass re-encrypted it, not the k1 value the route read.
    expect(afterRotation.previous_secret).toBe(rotationRaced()?.secret);
    sealedWith('k2', afterRotation.secret, rotated.secret);
    expect(await reseal.run()).toBe(0);

    // Both secrets of the overlap sign.
    receiver.secretsByVault.set(vaultId, [sub.secret, rotated.secret]);
    expect((await oneEvent(vaultId, sub.id)).map((d) => d.status)).toEqual(['delivered']);
    expect(verifiedWith(vaultId, [sub.secret, rotated.secret])).toHaveLength(1);
    expect(receiver.rejected).toEqual([]);
  });

  describe('answers kept for Idempotency-Key repeats', () => {
    const KEY = 'Idempotency-Key';
    const storedAnswer = async (key: string) =>
      (await t.sql<{ status: number; body: string }>(`SELECT status, body FROM idempotency_keys WHERE key = $1`, [key]))[0];
    const subscriptionsOf = async (vaultId: string) =>
      Number((await t.sql<{ n: string }>(`SELECT count(*) AS n FROM webhooks WHERE vault_id = $1`, [vaultId]))[0].n);
    /** A keyed creation and the answer it stored. */
    const keyedCreation = async (name: string) => {
      const vaultId = await t.createVault(owner, { name });
      const key = randomUUID();
      const body = { url: receiver.url, events: ['record.created'] };
      const first = await t.post(owner, hooks(vaultId), body).set(KEY, key).expect(201);
      const repeat = (server = t.app.getHttpServer()) =>
        request(server)
          .post(`/api/v1${hooks(vaultId)}`)
          .set('Authorization', `Bearer ${owner.token}`)
          .set(KEY, key)
          .send(body);
      return { vaultId, key, first, repeat, webhook: first.body as { id: string; secret: string } };
    };

    it('a keyed creation stores its answer with the secret encrypted; a repeat answers exactly the first answer', async () => {
      const { vaultId, key, first, repeat, webhook } = await keyedCreation('Keyed');
      const kept = await storedAnswer(key);
      expect(kept.status).toBe(201);
      expect(kept.body).not.toContain(webhook.secret.slice('whsec_'.length));
      const body = JSON.parse(kept.body) as { secret: string };
      sealedWith('k2', body.secret, webhook.secret);
      expect({ ...body, secret: webhook.secret }).toEqual(first.body);
      // sealed apart from the subscription's own row
      expect(body.secret).not.toBe((await stored(webhook.id)).secret);

      const again = await repeat().expect(201);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.headers['content-type']).toBe(first.headers['content-type']);
      expect(again.text).toBe(first.text);
      expect(again.body.secret).toBe(webhook.secret);
      expect(await subscriptionsOf(vaultId)).toBe(1);
      expect((await storedAnswer(key)).body).toBe(kept.body);
    });

    it("a stored answer and the subscription row do not take each other's encrypted secret", async () => {
      const { key, repeat, webhook } = await keyedCreation('Bound');
      const kept = JSON.parse((await storedAnswer(key)).body) as { secret: string };
      // the answer's value does not decrypt as the row's secret
      expect(() => t.app.get(WebhookSecrets).box.open(kept.secret, webhook.id)).toThrow(SecretUnreadableError);
      // the row's value put into the stored answer is not replayed
      const row = (await stored(webhook.id)).secret;
      await t.sql(`UPDATE idempotency_keys SET body = $2 WHERE key = $1`, [key, JSON.stringify({ ...kept, secret: row })]);
      const refused = await repeat().expect(410);
      expect(refused.body).toMatchObject({ status: 410, code: 'webhook_secret_unavailable', requestId: expect.any(String) });
      expect(refused.body.detail).toContain(webhook.id);
      expect(refused.text).not.toContain(webhook.secret.slice('whsec_'.length));
    });

    it('replays after a key rotation while the sealing key is in the ring; once it is removed, 410 webhook_secret_unavailable', async () => {
      const { key, first, repeat, webhook } = await keyedCreation('Ring');
      const rotated = await instance({ WEBHOOK_SECRET_KEYS: `${K3},${K2}` });
      const again = await repeat(rotated.getHttpServer()).expect(201);
      expect(again.headers['idempotency-replayed']).toBe('true');
      expect(again.text).toBe(first.text);

      const removed = await instance({ WEBHOOK_SECRET_KEYS: K3 });
      const refused = await repeat(removed.getHttpServer()).expect(410);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.headers['idempotency-replayed']).toBeUndefined();
      expect(refused.body).toMatchObject({ code: 'webhook_secret_unavailable', requestId: refused.headers['x-request-id'] });
      expect(refused.body.detail).toContain(webhook.id);
      // the stored answer stays: an instance holding the key replays it again
      expect((await repeat().expect(201)).text).toBe(first.text);

      // an answer stored with the secret in plain text (before it was encrypted) replays as it is
      await t.sql(`UPDATE idempotency_keys SET body = $2 WHERE key = $1`, [key, first.text]);
      expect((await repeat(removed.getHttpServer()).expect(201)).text).toBe(first.text);
    });

    it('rotate-secret does not take Idempotency-Key: nothing is stored, every call is a new secret', async () => {
      const vaultId = await t.createVault(owner, { name: 'Rotate' });
      const sub = await subscribe(vaultId);
      const key = randomUUID();
      const rotate = () =>
        t
          .post(owner, `${hooks(vaultId)}/webhook-id/${sub.id}/rotate-secret`)
          .set(KEY, key)
          .expect(200);
      const [a, b] = [await rotate(), await rotate()];
      expect(b.headers['idempotency-replayed']).toBeUndefined();
      expect(b.body.secret).not.toBe(a.body.secret);
      expect(await storedAnswer(key)).toBeUndefined();
    });
  });
});
