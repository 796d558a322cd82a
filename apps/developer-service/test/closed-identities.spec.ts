import { randomUUID } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { AccountDeletedEvent, EVENT_STREAMS, SUBJECTS } from '@vault/contracts';
import { ensureStream, EventNamespace, JetStreamServer } from '@vault/platform/events';
import { bootTestApp, createTestDatabase, TestDatabase } from '@vault/platform/testing';
import { decodeJwt } from 'jose';
import { Client } from 'pg';
import request from 'supertest';
import { AppModule } from '../src/app/app.module';
import { CLOSED_IDENTITIES_DURABLE } from '../src/capabilities/closed-identities/account-deletions.handler';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { testIdentityId } from '../src/features/test-tokens/test-token.render';
import { appPath, baseEnv, writeBootstrapFile } from './support';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

const FILE = {
  tenants: [
    {
      id: 'tenant-a',
      name: 'Tenant A',
      applications: [
        { clientId: 'app-a', clientSecret: 'secret-a-123', testMode: true, redirectUris: ['https://client.example/cb'] },
      ],
      users: [
        { username: 'alice@a.test', password: 'alice-password' },
        { username: 'bob@a.test', password: 'bob-password' },
      ],
    },
  ],
};
const credentials = (name: 'alice' | 'bob', password = `${name}-password`) => ({
  clientSecret: 'secret-a-123',
  username: `${name}@a.test`,
  password,
});

/**
 * A deleted account signs in no more: the user module's account.deleted.v1 reaches the
 * developer module through its JetStream consumer (real NATS, real PostgreSQL), and
 * every token issuance for that identity (sign-in, test token) answers 403 account_deleted.
 */
describe('developer-service: identities of deleted accounts get no token', () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;
  let pg: Client;
  let app: INestApplication;
  let server: JetStreamServer;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let version = 1;
  const namespace = new EventNamespace(`t_closed_${randomUUID().slice(0, 8)}`);
  let ipCounter = 0;

  const signIn = (body: object) =>
    request(app.getHttpServer())
      .post(`${appPath('tenant-a', 'app-a')}/auth`)
      .set('X-Forwarded-For', `198.51.100.${++ipCounter}`)
      .send(body);
  const subOf = (token: string) => String(decodeJwt(token).sub);
  /** What the user module publishes when the identity's account is deleted. */
  const publishDeletion = async (openId: string, id = randomUUID()) => {
    const event: AccountDeletedEvent = {
      accountId: randomUUID(),
      tenantId: 'tenant-a',
      openId,
      username: 'someone@a.test',
      firstName: 'Some',
      lastName: 'One',
      active: false,
      version: ++version,
      occurredAt: new Date().toISOString(),
    };
    await jetstream(nc).publish(namespace.subject(SUBJECTS.accountDeleted), JSON.stringify(event), { msgID: id });
    return id;
  };
  const until = async (check: () => Promise<boolean>, what: string) => {
    const end = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out: ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const closedRows = async (openId: string) =>
    (await pg.query('SELECT tenant_id, open_id FROM closed_identities WHERE open_id = $1', [openId])).rows;

  beforeAll(async () => {
    db = await createTestDatabase('developer_closed');
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    nc = await connect({ servers: NATS_URL });
    jsm = await jetstreamManager(nc);
    // the user module's stream (it creates it; here the test does)
    await ensureStream(jsm, {
      name: namespace.stream(EVENT_STREAMS.accountEvents.name),
      subjects: EVENT_STREAMS.accountEvents.subjects.map((s) => namespace.subject(s)),
      replicas: 1,
      duplicateWindowMs: 60_000,
    });
    app = await bootTestApp(AppModule, {
      ...baseEnv(db.url),
      NATS_URL,
      EVENTS_NAMESPACE: namespace.prefix,
      VAULT_BOOTSTRAP_FILE: writeBootstrapFile(FILE),
    });
    server = await startJetStreamConsumers(app);
    await server.ready();
  });
  afterAll(async () => {
    await app?.close();
    await jsm?.streams.delete(namespace.stream(EVENT_STREAMS.accountEvents.name)).catch(() => undefined);
    await jsm?.streams.delete(namespace.stream(`${EVENT_STREAMS.accountEvents.name}_DLQ`)).catch(() => undefined);
    await nc?.close();
    await pg?.end();
    await db?.drop();
  });

  it('refuses sign-in with 403 account_deleted once the account is deleted; wrong passwords stay 401, others sign in', async () => {
    const alice = subOf((await signIn(credentials('alice')).expect(200)).body.access_token);
    await publishDeletion(alice);
    await until(async () => (await signIn(credentials('alice'))).status === 403, 'the deletion to reach the developer module');

    const refused = await signIn(credentials('alice')).expect(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 403, code: 'account_deleted', requestId: expect.any(String) });
    expect(refused.body.access_token).toBeUndefined();
    // the credentials are checked first: a wrong password learns nothing about the account
    const wrong = await signIn(credentials('alice', 'not-her-password')).expect(401);
    expect(wrong.body.code).toBe('invalid_credentials');
    // another identity of the tenant is not affected
    expect(subOf((await signIn(credentials('bob')).expect(200)).body.access_token)).not.toBe(alice);
    expect(await closedRows(alice)).toEqual([{ tenant_id: 'tenant-a', open_id: alice }]);
  });

  it('revokes every refresh-token family of the identity with the deletion, in the same transaction', async () => {
    const refresh = (token: string) =>
      request(app.getHttpServer())
        .post(`${appPath('tenant-a', 'app-a')}/oauth/token`)
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: token, client_id: 'app-a', client_secret: 'secret-a-123' });
    const first = (await signIn(credentials('bob')).expect(200)).body;
    const second = (await signIn(credentials('bob')).expect(200)).body;
    const rotated = (await refresh(first.refresh_token).expect(200)).body.refresh_token as string;
    const bob = subOf(first.access_token);
    await publishDeletion(bob);
    await until(async () => (await closedRows(bob)).length === 1, 'the deletion of bob');
    const families = await pg.query('SELECT revoked_reason FROM refresh_token_families WHERE open_id = $1 ORDER BY created_at', [
      bob,
    ]);
    // bob's earlier sign-ins in this suite too: every family of the identity
    expect(families.rows.length).toBeGreaterThanOrEqual(2);
    expect(families.rows.every((r) => r.revoked_reason === 'account_deleted')).toBe(true);
    for (const token of [rotated, second.refresh_token]) {
      const res = await refresh(token).expect(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
    }
  });

  it('refuses test tokens to the test identity of an application once its account is deleted', async () => {
    const test = () => request(app.getHttpServer()).get(`${appPath('tenant-a', 'app-a')}/test`);
    await test().expect(200);
    await publishDeletion(`vault|${testIdentityId('tenant-a', 'app-a')}`);
    await until(async () => (await test()).status === 403, 'the test identity to be closed');
    expect((await test().expect(403)).body.code).toBe('account_deleted');
  });

  it('takes a repeated or backfilled deletion event without a second row or a dead letter', async () => {
    const openId = `vault|${randomUUID()}`;
    const before = server.stats(CLOSED_IDENTITIES_DURABLE).processed;
    await publishDeletion(openId);
    await publishDeletion(openId);
    await until(async () => server.stats(CLOSED_IDENTITIES_DURABLE).processed === before + 2, 'both events');
    expect(await closedRows(openId)).toHaveLength(1);
    expect(server.stats(CLOSED_IDENTITIES_DURABLE).deadLettered).toBe(0);
  });
});
