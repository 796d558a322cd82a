import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { WebhookDisabledCode1763900000700 } from '../src/migrations/1763900000700-webhook-disabled-code';
import { waitFor } from './activity-log.harness';
import { Caller, RecordsTestApp } from './support';

/** Webhook subscription endpoints: rules, roles, validation and the SSRF refusals at subscription time. */
describe('webhook subscriptions', () => {
  let t: RecordsTestApp;
  let owner: Caller;
  let vaultId: string;

  beforeAll(async () => {
    // Only the documentation range 203.0.113.0/24 is opened, to prove an allowed private-looking
    // target may use http; everything else follows the default rules.
    t = await RecordsTestApp.start('records_webhooks', { WEBHOOK_ALLOWED_TARGETS: '203.0.113.0/24,hooks.test.internal' });
    owner = await t.caller();
    vaultId = await t.createVault(owner, { name: 'Hooks' });
  });
  afterAll(() => t?.stop());

  const hooks = (v = vaultId) => `/vault/vault-id/${v}/webhooks`;
  const hook = (id: string, v = vaultId) => `${hooks(v)}/webhook-id/${id}`;
  const PUBLIC_URL = 'https://93.184.215.14/vault-hooks';
  const create = async (body: object = {}) =>
    (await t.post(owner, hooks(), { url: PUBLIC_URL, events: ['record.created'], ...body }).expect(201)).body;
  const tables = async () =>
    JSON.stringify({
      webhooks: await t.sql(`SELECT * FROM webhooks ORDER BY id`),
      deliveries: await t.sql(`SELECT * FROM webhook_deliveries ORDER BY id`),
    });

  it('creates a subscription and shows its secret only in that answer', async () => {
    const res = await t
      .post(owner, hooks(), { url: PUBLIC_URL, events: ['record.created', 'file.deleted'], description: 'CRM sync' })
      .expect(201);
    expect(res.body).toMatchObject({
      vaultId,
      url: PUBLIC_URL,
      events: ['record.created', 'file.deleted'],
      description: 'CRM sync',
      enabled: true,
      disabledCode: null,
      disabledReason: null,
      failingSince: null,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32);

    const one = await t.get(owner, hook(res.body.id)).expect(200);
    expect(one.body.secret).toBeUndefined();
    expect(one.body).toEqual({ ...res.body, secret: undefined, updatedAt: one.body.updatedAt });
    const list = await t.get(owner, hooks()).expect(200);
    expect(list.body.map((w: { id: string }) => w.id)).toContain(res.body.id);
    expect(list.body.every((w: object) => !('secret' in w))).toBe(true);
  });

  it('accepts every event type and "*"; refuses unknown types, empty lists and unknown fields', async () => {
    await create({ events: ['*'] });
    await create({ events: ['vault.transferred', 'record.transferred', 'collaborator.updated', 'file.created'] });
    const before = await tables();
    for (const body of [
      { url: PUBLIC_URL, events: ['record.exploded'] },
      { url: PUBLIC_URL, events: [] },
      { url: PUBLIC_URL, events: ['record.created', 'record.created'] },
      { url: PUBLIC_URL },
      { events: ['*'] },
      { url: PUBLIC_URL, events: ['*'], secret: 'whsec_mine' },
      { url: 42, events: ['*'] },
    ]) {
      const res = await t.post(owner, hooks(), body).expect(400);
      expect(res.body.code).toBe('validation_failed');
    }
    expect(await tables()).toBe(before);
  });

  describe('refuses unsafe targets with 400 webhook_target_refused and stores nothing', () => {
    const refused: [string, string, RegExp][] = [
      ['plain http to a public address', 'http://93.184.215.14/hook', /https/],
      ['another scheme', 'ftp://93.184.215.14/hook', /https/],
      ['credentials in the url', 'https://user:pw@93.184.215.14/hook', /credentials/],
      ['not a url', 'hooks.example.com/x', /absolute URL/],
      ['loopback', 'https://127.0.0.1/hook', /127\.0\.0\.1.*loopback/],
      ['loopback by name (after DNS resolution)', 'https://localhost/hook', /localhost resolves to/],
      ['loopback elsewhere in 127/8', 'https://127.1.2.3:8443/hook', /loopback/],
      ['IPv6 loopback', 'https://[::1]/hook', /::1/],
      ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/hook', /resolves to/],
      ['private 10/8', 'https://10.1.2.3/hook', /private/],
      ['private 172.16/12', 'https://172.20.0.5/hook', /private/],
      ['private 192.168/16', 'https://192.168.1.10/hook', /private/],
      ['shared address space 100.64/10', 'https://100.64.0.1/hook', /private/],
      ['unique local IPv6', 'https://[fd12:3456::1]/hook', /private/],
      ['link-local', 'https://169.254.10.20/hook', /link-local/],
      ['cloud metadata', 'https://169.254.169.254/latest/meta-data', /169\.254\.169\.254/],
      ['IPv6 metadata', 'https://[fd00:ec2::254]/latest', /resolves to/],
      ['IPv6 link-local', 'https://[fe80::1]/hook', /link-local/],
      ['unspecified address', 'https://0.0.0.0/hook', /0\.0\.0\.0/],
      ['a name that does not resolve', 'https://no-such-host.invalid/hook', /does not resolve/],
    ];
    it.each(refused)('%s', async (_, url, detail) => {
      const before = await tables();
      const res = await t.post(owner, hooks(), { url, events: ['*'] }).expect(400);
      expect(res.body).toMatchObject({ code: 'webhook_target_refused', status: 400 });
      expect(res.body.detail).toMatch(detail);
      expect(res.body.errors).toEqual([{ field: 'url', message: expect.any(String) }]);
      expect(await tables()).toBe(before);
    });

    it('on update too, leaving the subscription as it was', async () => {
      const w = await create();
      const before = await tables();
      const res = await t.put(owner, hook(w.id), { url: 'https://10.0.0.1/x', events: ['*'] }).expect(400);
      expect(res.body.code).toBe('webhook_target_refused');
      expect(await tables()).toBe(before);
    });
  });

  it('lets WEBHOOK_ALLOWED_TARGETS open addresses, CIDRs and host names, which may use http', async () => {
    const byCidr = await t.post(owner, hooks(), { url: 'http://203.0.113.7:8080/in', events: ['*'] }).expect(201);
    expect(byCidr.body.url).toBe('http://203.0.113.7:8080/in');
    // An allowed host name is taken as it is, whatever it resolves to (here: nothing yet).
    await t.post(owner, hooks(), { url: 'http://hooks.test.internal/in', events: ['*'] }).expect(201);
    // Outside the allowed range the default rules still apply.
    await t.post(owner, hooks(), { url: 'http://198.51.100.7/in', events: ['*'] }).expect(400);
  });

  it('updates, pauses, resumes and deletes a subscription', async () => {
    const w = await create({ description: 'old' });
    const upd = await t.put(owner, hook(w.id), { url: 'https://93.184.215.14/v2', events: ['*'], description: null }).expect(200);
    expect(upd.body).toMatchObject({ url: 'https://93.184.215.14/v2', events: ['*'], description: null, enabled: true });

    const paused = await t.put(owner, hook(w.id), { url: PUBLIC_URL, events: ['*'], enabled: false }).expect(200);
    expect(paused.body).toMatchObject({
      enabled: false,
      disabledCode: 'disabled_by_owner',
      disabledReason: 'disabled by the owner',
    });
    expect(paused.body.disabledAt).not.toBeNull();
    // The same settings again change nothing: neither when it was disabled nor its updatedAt.
    const again = await t.put(owner, hook(w.id), { url: PUBLIC_URL, events: ['*'], enabled: false }).expect(200);
    expect(again.body).toEqual(paused.body);
    await t.sql(`UPDATE webhooks SET failing_since = now() - interval '1 day' WHERE id = $1`, [w.id]);
    const resumed = await t.put(owner, hook(w.id), { url: PUBLIC_URL, events: ['*'], enabled: true }).expect(200);
    expect(resumed.body).toMatchObject({
      enabled: true,
      disabledCode: null,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
    });

    await t.delete(owner, hook(w.id)).expect(200);
    await t.get(owner, hook(w.id)).expect(404);
    expect(await t.sql(`SELECT 1 FROM webhooks WHERE id = $1`, [w.id])).toHaveLength(0);
  });

  it('gives the subscriptions disabled before disabledCode existed their code, and disables those of accounts deleted before', async () => {
    const [gone, failing, paused, live, orphan] = [
      await create(),
      await create(),
      await create(),
      await create(),
      await create(),
    ];
    // `orphan` was created by an account deleted before the migration (inactive in the account directory)
    const gone2 = `vault|${randomUUID()}`;
    await t.sql(
      `INSERT INTO account_directory (tenant_id, open_id, account_id, username, active, version) VALUES ($1, $2, $3, $4, false, 2)`,
      [owner.tenantId, gone2, randomUUID(), `deleted:${randomUUID()}`],
    );
    await t.sql(`UPDATE webhooks SET created_by = $2 WHERE id = $1`, [orphan.id, gone2]);
    const migration = new WebhookDisabledCode1763900000700();
    const qr = t.app.get(DataSource).createQueryRunner();
    try {
      await migration.down(qr);
      for (const [w, reason] of [
        [gone, 'the receiver answered 410 Gone on 2026-11-20T10:00:00.000Z'],
        [failing, 'deliveries failing since 2026-11-15T10:00:00.000Z; last error: HTTP 500'],
        [paused, 'disabled by the owner'],
      ] as const) {
        await t.sql(`UPDATE webhooks SET enabled = false, disabled_reason = $2, disabled_at = now() WHERE id = $1`, [
          w.id,
          reason,
        ]);
      }
      await migration.up(qr);
    } finally {
      await qr.release();
    }
    const views = await Promise.all(
      [gone, failing, paused, live, orphan].map(async (w) => (await t.get(owner, hook(w.id)).expect(200)).body),
    );
    expect(views.map((w) => [w.enabled, w.disabledCode])).toEqual([
      [false, 'receiver_gone'],
      [false, 'deliveries_failing'],
      [false, 'disabled_by_owner'],
      [true, null],
      [false, 'creator_account_deleted'],
    ]);
    expect(views[4].disabledAt).not.toBeNull();
  });

  it('rotates the secret: a new one is shown, the old one signs beside it for 24 hours', async () => {
    const w = await create();
    const [stored] = await t.sql<{ secret: string }>(`SELECT secret FROM webhooks WHERE id = $1`, [w.id]);
    const res = await t.post(owner, `${hook(w.id)}/rotate-secret`).expect(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(w.secret);
    const [row] = await t.sql<{ previous_secret: string; hours: number }>(
      `SELECT previous_secret, extract(epoch FROM previous_secret_expires_at - now()) / 3600 AS hours
       FROM webhooks WHERE id = $1`,
      [w.id],
    );
    // The old secret moves over as stored (encrypted, docs/webhooks.md, Secrets at rest).
    expect(row.previous_secret).toBe(stored.secret);
    expect(Number(row.hours)).toBeGreaterThan(23.9);
    expect(Number(row.hours)).toBeLessThanOrEqual(24);
  });

  it('pages the delivery log and redelivers one delivery', async () => {
    const w = await create();
    for (let i = 0; i < 3; i++) {
      await t.sql(
        `INSERT INTO webhook_deliveries (id, webhook_id, vault_id, event_id, event_type, stream_seq, body, status,
           attempts, last_status_code, last_error, next_attempt_at, delivered_at, created_at)
         VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), 'record.created', $3, '{}', 'failed', 8, 500, 'HTTP 500',
           NULL, NULL, now() - make_interval(mins => $4))`,
        [w.id, vaultId, i + 1, 10 - i],
      );
    }
    const page1 = await t.get(owner, `${hook(w.id)}/deliveries?pageSize=2`).expect(200);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.page).toMatchObject({ totalItems: 3, currentPage: 1, pageSize: 2, totalPages: 2 });
    expect(typeof page1.body.nextCursor).toBe('string');
    // The first shape of the list, deprecated, repeats the new one until the sunset.
    expect(page1.body.items).toEqual(page1.body.data);
    expect(page1.body.pageInfo).toEqual(page1.body.page);
    expect(page1.headers['deprecation']).toBe(`@${Date.parse('2026-11-27T00:00:00Z') / 1000}`);
    expect(new Date(page1.headers['sunset']).toISOString()).toBe('2027-11-27T00:00:00.000Z');
    expect(page1.body.data[0]).toMatchObject({
      eventType: 'record.created',
      status: 'failed',
      attempts: 8,
      lastStatusCode: 500,
      lastError: 'HTTP 500',
      nextAttemptAt: null,
      deliveredAt: null,
    });
    const page2 = await t.get(owner, `${hook(w.id)}/deliveries?page=2&pageSize=2`).expect(200);
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.nextCursor).toBeNull();
    const all = [...page1.body.data, ...page2.body.data];
    // Newest first.
    expect(all.map((d: { createdAt: string }) => d.createdAt)).toEqual(
      all
        .map((d: { createdAt: string }) => d.createdAt)
        .sort()
        .reverse(),
    );
    await t.get(owner, `${hook(w.id)}/deliveries?pageSize=500`).expect(400);

    const target = page2.body.data[0];
    const again = await t.post(owner, `${hook(w.id)}/deliveries/delivery-id/${target.id}/redeliver`).expect(202);
    expect(again.body).toMatchObject({ id: target.id, eventId: target.eventId, status: 'pending', attempts: 0 });
    expect(again.body.nextAttemptAt).not.toBeNull();
    const missing = await t.post(owner, `${hook(w.id)}/deliveries/delivery-id/${randomUUID()}/redeliver`).expect(404);
    expect(missing.body.code).toBe('webhook_delivery_not_found');
    // A delivery of another subscription is not reachable through this one.
    const other = await create();
    const foreign = await t.post(owner, `${hook(other.id)}/deliveries/delivery-id/${target.id}/redeliver`).expect(404);
    expect(foreign.body.code).toBe('webhook_delivery_not_found');
  });

  it('continues the delivery log from nextCursor, unshifted by deliveries created meanwhile', async () => {
    const w = await create();
    const insert = (seq: number, minutesAgo: number) =>
      t.sql(
        `INSERT INTO webhook_deliveries (id, webhook_id, vault_id, event_id, event_type, stream_seq, body, status, created_at)
         VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), 'record.created', $3, '{}', 'delivered',
           now() - make_interval(mins => $4))`,
        [w.id, vaultId, seq, minutesAgo],
      );
    for (let i = 0; i < 5; i++) await insert(i + 1, 10 - i);
    const seen: string[] = [];
    const first = await t.get(owner, `${hook(w.id)}/deliveries?pageSize=2`).expect(200);
    seen.push(...first.body.data.map((d: { id: string }) => d.id));
    // A newer delivery arrives: an offset page 2 would repeat the last one of page 1.
    await insert(6, 0);
    let cursor: string | null = first.body.nextCursor;
    const pages = [first.body.page.currentPage];
    while (cursor) {
      const next = await t.get(owner, `${hook(w.id)}/deliveries?pageSize=2&cursor=${cursor}`).expect(200);
      seen.push(...next.body.data.map((d: { id: string }) => d.id));
      pages.push(next.body.page.currentPage);
      expect(next.body.items).toEqual(next.body.data);
      cursor = next.body.nextCursor;
    }
    expect(pages).toEqual([1, 2, 3]);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);

    const mixed = await t.get(owner, `${hook(w.id)}/deliveries?page=2&cursor=${first.body.nextCursor}`).expect(400);
    expect(mixed.body.errors[0].field).toBe('cursor');
    const forged = await t.get(owner, `${hook(w.id)}/deliveries?cursor=bm90LWEtY3Vyc29y`).expect(400);
    expect(forged.body).toMatchObject({ code: 'validation_failed', requestId: expect.any(String) });
  });

  describe('redeliver leaves a delivery being sent alone', () => {
    /** A delivery of `webhookId` that failed once; `leaseSeconds` from now: its lease (null: none). */
    const delivery = async (webhookId: string, status: string, leaseSeconds: number | null) => {
      const [row] = await t.sql<{ id: string }>(
        `INSERT INTO webhook_deliveries (id, webhook_id, vault_id, event_id, event_type, stream_seq, body, status,
           attempts, last_status_code, last_error, next_attempt_at, leased_until)
         VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), 'record.created', 1, '{}', $3, 1, 500, 'HTTP 500',
           now() + interval '10 minutes', now() + make_interval(secs => $4))
         RETURNING id`,
        [webhookId, vaultId, status, leaseSeconds],
      );
      return row.id;
    };
    const row = async (id: string) => (await t.sql(`SELECT * FROM webhook_deliveries WHERE id = $1`, [id]))[0];
    const redeliver = (webhookId: string, id: string) =>
      t.post(owner, `${hook(webhookId)}/deliveries/delivery-id/${id}/redeliver`);

    it('answers 409 webhook_delivery_in_flight while an attempt holds the lease, and changes nothing', async () => {
      const w = await create();
      const held = await delivery(w.id, 'pending', 60);
      const before = await row(held);
      const res = await redeliver(w.id, held).expect(409);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 409, code: 'webhook_delivery_in_flight', requestId: expect.any(String) });
      expect(res.body.detail).toMatch(/being sent right now/);
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(61);
      expect(await row(held)).toEqual(before);
    });

    it('redelivers a pending delivery waiting for its retry, one whose lease ran out, and a delivered one', async () => {
      const w = await create();
      for (const [status, lease] of [
        ['pending', null],
        ['pending', -1],
        ['delivered', null],
      ] as const) {
        const id = await delivery(w.id, status, lease);
        const res = await redeliver(w.id, id).expect(202);
        expect([status, lease, res.body]).toEqual([
          status,
          lease,
          expect.objectContaining({ id, status: 'pending', attempts: 0 }),
        ]);
        const [{ due }] = await t.sql<{ due: boolean }>(
          `SELECT next_attempt_at <= now() AND delivered_at IS NULL AS due FROM webhook_deliveries WHERE id = $1`,
          [id],
        );
        expect(due).toBe(true);
      }
      await redeliver(w.id, 'not-a-uuid').expect(404);
    });

    it('checks the lease and requeues in one statement: a claim committing meanwhile wins, with 409', async () => {
      const w = await create();
      const id = await delivery(w.id, 'pending', null);
      // A dispatcher's claim: it has locked and leased the row, not yet committed.
      const claim = new Client({ connectionString: t.db.url });
      await claim.connect();
      try {
        await claim.query('BEGIN');
        await claim.query(
          `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = now() + interval '1 minute',
             leased_until = now() + interval '1 minute' WHERE id = $1`,
          [id],
        );
        const answer = redeliver(w.id, id).then((res) => res);
        // The redelivery waits for the claim's row lock; then the claim commits.
        await waitFor(
          async () =>
            (
              await t.sql(
                `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                   AND query LIKE '%webhook_deliveries%'`,
              )
            ).length > 0,
          20_000,
          'the redelivery to wait for the claim',
        );
        await claim.query('COMMIT');
        const res = await answer;
        expect([res.status, res.body.code]).toEqual([409, 'webhook_delivery_in_flight']);
        expect(await row(id)).toMatchObject({ status: 'pending', attempts: 2, leased_until: expect.any(Date) });
      } finally {
        await claim.end();
      }
    });
  });

  it('answers 404 webhook_not_found for unknown ids and for a subscription of another vault', async () => {
    const otherVault = await t.createVault(owner, { name: 'Other' });
    const w = await create();
    for (const path of [hook(randomUUID()), hook('not-a-uuid'), hook(w.id, otherVault)]) {
      const res = await t.get(owner, path).expect(404);
      expect(res.body.code).toBe('webhook_not_found');
    }
    await t.put(owner, hook(w.id, otherVault), { url: PUBLIC_URL, events: ['*'] }).expect(404);
    await t.delete(owner, hook(w.id, otherVault)).expect(404);
    await t.get(owner, hook(w.id)).expect(200);
  });

  describe('only the vault owner manages webhooks', () => {
    let w: { id: string };
    let deliveryId: string;
    beforeAll(async () => {
      w = await create();
      deliveryId = randomUUID();
      await t.sql(
        `INSERT INTO webhook_deliveries (id, webhook_id, vault_id, event_id, event_type, stream_seq, body, status)
         VALUES ($1, $2, $3, gen_random_uuid(), 'record.created', 1, '{}', 'delivered')`,
        [deliveryId, w.id, vaultId],
      );
    });
    const calls = (): [string, string, object?][] => [
      ['post', hooks(), { url: PUBLIC_URL, events: ['*'] }],
      ['get', hooks()],
      ['get', hook(w.id)],
      ['put', hook(w.id), { url: PUBLIC_URL, events: ['*'] }],
      ['delete', hook(w.id)],
      ['post', `${hook(w.id)}/rotate-secret`],
      ['get', `${hook(w.id)}/deliveries`],
      ['post', `${hook(w.id)}/deliveries/delivery-id/${deliveryId}/redeliver`],
    ];
    const send = (c: Caller, [method, path, body]: [string, string, object?]) =>
      method === 'get'
        ? t.get(c, path)
        : method === 'delete'
          ? t.delete(c, path)
          : (t[method as 'post' | 'put'] as RecordsTestApp['post'])(c, path, body);

    it.each(['vault_editor', 'vault_viewer', 'vault_info'] as const)('%s: 403, nothing changes', async (role) => {
      const member = await t.caller();
      await t.grantVaultRole(vaultId, member, role);
      const before = await tables();
      for (const call of calls()) {
        const res = await send(member, call);
        expect([call[0], call[1], res.status]).toEqual([call[0], call[1], 403]);
      }
      expect(await tables()).toBe(before);
    });

    it('a stranger of the tenant and a caller of another tenant: 404, nothing changes', async () => {
      const before = await tables();
      for (const c of [await t.caller(), await t.caller('tenant-b')]) {
        for (const call of calls()) {
          const res = await send(c, call);
          expect([call[0], call[1], res.status, res.body.code]).toEqual([call[0], call[1], 404, 'not_found']);
        }
      }
      expect(await tables()).toBe(before);
    });

    it('without a token: 401, nothing changes', async () => {
      const before = await tables();
      for (const [method, path, body] of calls()) {
        await t.http()[method as 'get'](`/api/v1${path}`).send(body).expect(401);
      }
      expect(await tables()).toBe(before);
    });
  });

  it('replays a create with the same Idempotency-Key instead of creating a second subscription', async () => {
    const key = randomUUID();
    const body = { url: PUBLIC_URL, events: ['record.deleted'] };
    const first = await t.post(owner, hooks(), body).set('Idempotency-Key', key).expect(201);
    const second = await t.post(owner, hooks(), body).set('Idempotency-Key', key).expect(201);
    expect(second.body.id).toBe(first.body.id);
    const rows = await t.sql(`SELECT 1 FROM webhooks WHERE vault_id = $1 AND events = '{record.deleted}'`, [vaultId]);
    expect(rows).toHaveLength(1);
  });
});
