import { randomUUID } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { REVOCATION_BUCKET, TokenRevokedEvent } from '@vault/contracts';
import { bootTestApp, createTestDatabase, TestDatabase } from '@vault/platform/testing';
import { decodeJwt } from 'jose';
import { Client } from 'pg';
import request from 'supertest';
import { AppModule } from '../src/app/app.module';
import { startLogoutWatch } from '../src/app/logout-watch';
import { LogoutRevocations } from '../src/capabilities/logouts/logout-revocations';
import { appPath, baseEnv, writeBootstrapFile } from './support';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const SECRETS: Record<string, string> = { 'app-a': 'secret-a-123', 'app-a2': 'secret-a2-123' };
const USERS = ['alice@a.test', 'bob@a.test', 'carol@a.test'];
const FILE = {
  tenants: [
    {
      id: 'tenant-a',
      name: 'Tenant A',
      applications: Object.entries(SECRETS).map(([clientId, clientSecret]) => ({ clientId, clientSecret })),
      users: USERS.map((username) => ({ username, password: username.replace('@a.test', '-password') })),
    },
  ],
};

/**
 * Logout (the user module writes the access token's jti into the platform's revocation
 * bucket) ends the refresh tokens of that identity at that application: real NATS, real
 * PostgreSQL.
 */
describe('developer-service: logouts revoke refresh tokens', () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;
  let pg: Client;
  let app: INestApplication;
  let nc: NatsConnection;
  let bucket: KV;
  let logouts: LogoutRevocations;
  let ipCounter = 0;
  let carol: { access_token: string; refresh_token: string };

  const signIn = async (username: string, client = 'app-a') =>
    (
      await request(app.getHttpServer())
        .post(`${appPath('tenant-a', client)}/auth`)
        .set('X-Forwarded-For', `198.18.0.${++ipCounter}`)
        .send({ clientSecret: SECRETS[client], username, password: username.replace('@a.test', '-password') })
        .expect(200)
    ).body as { access_token: string; refresh_token: string };
  const refresh = (token: string, client = 'app-a') =>
    request(app.getHttpServer())
      .post(`${appPath('tenant-a', client)}/oauth/token`)
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: token, client_id: client, client_secret: SECRETS[client] });
  /** What the user module's logout writes (RevocationService.revoke). */
  const logout = async (accessToken: string, revokedAt = new Date().toISOString()) => {
    const { jti, exp } = decodeJwt(accessToken);
    const event: TokenRevokedEvent = { jti: String(jti), exp: Number(exp), revokedAt };
    await bucket.put(String(jti), JSON.stringify(event));
    return revokedAt;
  };
  const until = async (check: () => Promise<boolean>, what: string) => {
    const end = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out: ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const reasonsOf = async (username: string) =>
    (
      await pg.query(
        `SELECT f.client_id, f.revoked_reason FROM refresh_token_families f
         JOIN organisation_users u ON f.user_id = u.id WHERE u.username = $1 ORDER BY f.created_at`,
        [username],
      )
    ).rows;

  beforeAll(async () => {
    db = await createTestDatabase('developer_logouts');
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    nc = await connect({ servers: NATS_URL });
    // the bucket as the platform's RevocationService creates it
    bucket = await new Kvm(nc).create(REVOCATION_BUCKET, { ttl: 24 * 60 * 60 * 1000, history: 1, replicas: 1 });
    app = await bootTestApp(AppModule, { ...baseEnv(db.url), NATS_URL, VAULT_BOOTSTRAP_FILE: writeBootstrapFile(FILE) });
    // a logout made before the watch starts (the module was down): applied from the bucket's replay
    carol = await signIn('carol@a.test');
    await logout(carol.access_token);
    logouts = startLogoutWatch(app);
    await logouts.watching;
  });
  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await pg?.end();
    await db?.drop();
  });

  it('revokes the families of the identity at that application started before the logout, and no others', async () => {
    const first = await signIn('alice@a.test');
    const second = await signIn('alice@a.test');
    const otherApp = await signIn('alice@a.test', 'app-a2');
    const bob = await signIn('bob@a.test');
    // the logout names the access token of a rotation: it still leads to the identity
    const rotated = (await refresh(first.refresh_token).expect(200)).body;
    const loggedOutAt = await logout(rotated.access_token);
    await until(async () => (await refresh(second.refresh_token)).status === 400, 'the logout to reach the module');

    expect((await refresh(rotated.refresh_token).expect(400)).body.error).toBe('invalid_grant');
    expect(await reasonsOf('alice@a.test')).toEqual([
      { client_id: 'app-a', revoked_reason: 'logout' },
      { client_id: 'app-a', revoked_reason: 'logout' },
      { client_id: 'app-a2', revoked_reason: null },
    ]);
    await refresh(otherApp.refresh_token, 'app-a2').expect(200);
    await refresh(bob.refresh_token).expect(200);
    // signing in again after the logout starts a family the logout does not touch
    const again = await signIn('alice@a.test');
    await logout(rotated.access_token, loggedOutAt); // the same entry once more (a replay at a restart)
    await logouts.settled();
    await refresh(again.refresh_token).expect(200);
  });

  it('applies a logout made while the watch was not running', async () => {
    await logouts.settled();
    expect(await reasonsOf('carol@a.test')).toEqual([{ client_id: 'app-a', revoked_reason: 'logout' }]);
    expect((await refresh(carol.refresh_token).expect(400)).body.error).toBe('invalid_grant');
  });

  it('ignores logouts of tokens it answered no refresh token with, and entries that are not logouts', async () => {
    const before = await pg.query(`SELECT count(*)::int AS n FROM refresh_token_families WHERE revoked_at IS NOT NULL`);
    await bucket.put(randomUUID(), JSON.stringify({ jti: 'x', exp: 0, revokedAt: new Date().toISOString() }));
    await bucket.put(
      `identity.${'0'.repeat(64)}`,
      JSON.stringify({ tenantId: 'tenant-a', openId: 'vault|x', exp: 0, revokedAt: '' }),
    );
    await new Promise((r) => setTimeout(r, 200));
    await logouts.settled();
    const after = await pg.query(`SELECT count(*)::int AS n FROM refresh_token_families WHERE revoked_at IS NOT NULL`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});
