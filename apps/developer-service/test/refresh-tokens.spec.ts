import { INestApplication } from '@nestjs/common';
import { bootTestApp, createTestDatabase, TestDatabase } from '@vault/platform/testing';
import { decodeJwt } from 'jose';
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { AppModule } from '../src/app/app.module';
import { parseBootstrapFile } from '../src/features/bootstrap/bootstrap-file';
import { BootstrapService } from '../src/features/bootstrap/bootstrap.service';
import { appPath, baseEnv, verifyWithJwks, writeBootstrapFile } from './support';

const file = (alicePassword = 'alice-password') => ({
  tenants: [
    {
      id: 'tenant-a',
      name: 'Tenant A',
      applications: [
        { clientId: 'app-a', clientSecret: 'secret-a-123' },
        { clientId: 'app-a2', clientSecret: 'secret-a2-123' },
      ],
      users: [
        { username: 'alice@a.test', password: alicePassword },
        { username: 'bob@a.test', password: 'bob-password' },
      ],
    },
    {
      id: 'tenant-b',
      name: 'Tenant B',
      applications: [{ clientId: 'app-b', clientSecret: 'secret-b-123' }],
      users: [{ username: 'carol@b.test', password: 'carol-password' }],
    },
  ],
});
const SECRETS: Record<string, string> = { 'app-a': 'secret-a-123', 'app-a2': 'secret-a2-123', 'app-b': 'secret-b-123' };
const sha256 = (token: string) => createHash('sha256').update(token).digest();

/**
 * Refresh tokens against real PostgreSQL: issued by the contract's sign-in, rotated at each
 * use on the OAuth token endpoint, bound to tenant, application and user, a reused one
 * revoking its whole family, expired ones refused; a password change revokes them.
 */
describe('developer-service refresh tokens', () => {
  let db: TestDatabase;
  let pg: Client;
  let app: INestApplication;
  let ipCounter = 0;

  const signIn = (username = 'alice@a.test', password = 'alice-password', tenant = 'tenant-a', client = 'app-a') =>
    request(app.getHttpServer())
      .post(`${appPath(tenant, client)}/auth`)
      .set('X-Forwarded-For', `203.0.113.${++ipCounter}`)
      .send({ clientSecret: SECRETS[client], username, password })
      .expect(200)
      .then((r) => r.body as { access_token: string; refresh_token: string });
  /** grant_type=refresh_token at `tenant`/`client`, authenticated with client_secret_post. */
  const refresh = (refreshToken: string, tenant = 'tenant-a', client = 'app-a') =>
    request(app.getHttpServer())
      .post(`${appPath(tenant, client)}/oauth/token`)
      .type('form')
      .send({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client, client_secret: SECRETS[client] });
  const familyOf = async (token: string) =>
    (
      await pg.query(
        `SELECT f.id, f.revoked_reason, t.spent_at IS NOT NULL AS spent, f.signed_in_at,
                floor(extract(epoch FROM f.created_at))::bigint AS stored_at
         FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id WHERE t.token_hash = $1`,
        [sha256(token)],
      )
    ).rows[0];
  const expectInvalidGrant = async (res: request.Response) => {
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
    expect(res.body.access_token).toBeUndefined();
    expect(res.body.refresh_token).toBeUndefined();
  };

  beforeAll(async () => {
    db = await createTestDatabase('developer_refresh');
    pg = new Client({ connectionString: db.url });
    await pg.connect();
    app = await bootTestApp(AppModule, {
      ...baseEnv(db.url),
      VAULT_BOOTSTRAP_FILE: writeBootstrapFile(file()),
      REFRESH_TOKEN_TTL_SECONDS: '3600',
      REFRESH_TOKEN_FAMILY_TTL_SECONDS: '7200',
    });
  });
  afterAll(async () => {
    await app?.close();
    await pg?.end();
    await db?.drop();
  });

  it('issues a refresh token with the sign-in and stores only its SHA-256', async () => {
    const { refresh_token } = await signIn();
    expect(refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(refresh_token, 'base64url')).toHaveLength(32);
    const rows = await pg.query(
      `SELECT t.token_hash, t.expires_at - t.created_at AS ttl, f.expires_at - f.created_at AS family_ttl, f.tenant_id, f.client_id, f.open_id
       FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id WHERE t.token_hash = $1`,
      [sha256(refresh_token)],
    );
    expect(rows.rows).toEqual([
      expect.objectContaining({ tenant_id: 'tenant-a', client_id: 'app-a', open_id: expect.stringMatching(/^vault\|/) }),
    ]);
    expect(rows.rows[0].ttl).toMatchObject({ hours: 1 });
    expect(rows.rows[0].family_ttl).toMatchObject({ hours: 2 });
    const dump = await pg.query(`SELECT * FROM refresh_tokens`);
    expect(JSON.stringify(dump.rows)).not.toContain(refresh_token);
  });

  it('rotates at every use: a new access token for the same user and a new refresh token, the old one spent', async () => {
    const first = await signIn();
    const res = await refresh(first.refresh_token).expect(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 900,
      refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    const { payload } = await verifyWithJwks(app, res.body.access_token);
    const before = decodeJwt(first.access_token);
    expect(payload).toMatchObject({ sub: before.sub, tid: 'tenant-a', cid: 'app-a', preferred_username: 'alice@a.test' });
    expect(payload.jti).not.toBe(before.jti);
    expect(await familyOf(first.refresh_token)).toMatchObject({ spent: true, revoked_reason: null });
    // and the successor rotates in turn, in the same family
    const third = await refresh(res.body.refresh_token).expect(200);
    expect((await familyOf(third.body.refresh_token)).id).toBe((await familyOf(first.refresh_token)).id);
  });

  it("tells the sign-in's time as auth_time: now at sign-in, the same after every refresh", async () => {
    const first = await signIn();
    const signedIn = decodeJwt(first.access_token);
    expect(signedIn.auth_time).toBe(signedIn.iat);
    expect((await familyOf(first.refresh_token)).signed_in_at).toBe(String(signedIn.auth_time));
    // the sign-in two hours ago (the family within its lifetime of the test's settings)
    await pg.query(
      `UPDATE refresh_token_families f SET signed_in_at = signed_in_at - 7140, created_at = now() - interval '119 minutes',
         expires_at = now() + interval '1 minute' FROM refresh_tokens t WHERE t.family_id = f.id AND t.token_hash = $1`,
      [sha256(first.refresh_token)],
    );
    const second = await refresh(first.refresh_token).expect(200);
    const third = await refresh(second.body.refresh_token).expect(200);
    for (const token of [second.body.access_token, third.body.access_token]) {
      const { payload } = await verifyWithJwks(app, token);
      expect(payload.auth_time).toBe(Number(signedIn.auth_time) - 7140);
      expect(Number(payload.iat) - Number(payload.auth_time)).toBeGreaterThanOrEqual(7140);
    }
  });

  it('gives the tokens of a family stored without a sign-in time the time the family was stored', async () => {
    const first = await signIn();
    await pg.query(
      `UPDATE refresh_token_families f SET signed_in_at = NULL, created_at = now() - interval '30 minutes'
         FROM refresh_tokens t WHERE t.family_id = f.id AND t.token_hash = $1`,
      [sha256(first.refresh_token)],
    );
    const stored = Number((await familyOf(first.refresh_token)).stored_at);
    const { payload } = await verifyWithJwks(app, (await refresh(first.refresh_token).expect(200)).body.access_token);
    expect(payload.auth_time).toBe(stored);
    expect(Number(payload.iat) - stored).toBeGreaterThanOrEqual(30 * 60 - 1);
  });

  it('revokes the whole family when a spent token is used again', async () => {
    const first = await signIn();
    const second = (await refresh(first.refresh_token).expect(200)).body.refresh_token as string;
    const third = (await refresh(second).expect(200)).body.refresh_token as string;
    await expectInvalidGrant(await refresh(first.refresh_token));
    expect(await familyOf(third)).toMatchObject({ revoked_reason: 'reuse' });
    // every descendant is dead now, the newest included
    await expectInvalidGrant(await refresh(third));
    // another sign-in of the same user starts a family of its own
    await refresh((await signIn()).refresh_token).expect(200);
  });

  it('lets one of two concurrent uses of a token win; the loser revokes the family', async () => {
    const { refresh_token } = await signIn();
    const answers = await Promise.all([refresh(refresh_token), refresh(refresh_token)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    const [winner] = answers.filter((a) => a.status === 200);
    await expectInvalidGrant(await refresh(winner.body.refresh_token));
  });

  it('refuses a token at another application of the tenant or at another tenant, issuing nothing and leaving it valid', async () => {
    const { refresh_token } = await signIn();
    await expectInvalidGrant(await refresh(refresh_token, 'tenant-a', 'app-a2'));
    await expectInvalidGrant(await refresh(refresh_token, 'tenant-b', 'app-b'));
    expect(await familyOf(refresh_token)).toMatchObject({ spent: false, revoked_reason: null });
    await refresh(refresh_token).expect(200);
  });

  it('refuses expired tokens and tokens of a family past its absolute lifetime', async () => {
    const expired = (await signIn()).refresh_token;
    await pg.query(`UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256(expired)]);
    await expectInvalidGrant(await refresh(expired));

    const old = (await signIn()).refresh_token;
    const next = (await refresh(old).expect(200)).body.refresh_token as string;
    await pg.query(`UPDATE refresh_token_families SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      (await familyOf(next)).id,
    ]);
    await expectInvalidGrant(await refresh(next));
  });

  it('never lets a new token outlive its family', async () => {
    const { refresh_token } = await signIn();
    const family = (await familyOf(refresh_token)).id;
    await pg.query(`UPDATE refresh_token_families SET expires_at = now() + interval '10 minutes' WHERE id = $1`, [family]);
    const next = (await refresh(refresh_token).expect(200)).body.refresh_token as string;
    const row = await pg.query(
      `SELECT t.expires_at = f.expires_at AS capped FROM refresh_tokens t JOIN refresh_token_families f ON f.id = t.family_id
       WHERE t.token_hash = $1`,
      [sha256(next)],
    );
    expect(row.rows[0].capped).toBe(true);
  });

  it('refuses unknown and malformed refresh tokens alike', async () => {
    await expectInvalidGrant(await refresh('A'.repeat(43)));
    await expectInvalidGrant(await refresh('not a token'));
  });

  it('revokes every family of a user whose password changes, and no other', async () => {
    const alice = [await signIn(), await signIn('alice@a.test', 'alice-password', 'tenant-a', 'app-a2')];
    const bob = await signIn('bob@a.test', 'bob-password');
    const bootstrap = app.get(BootstrapService);
    // the same password again (no change) keeps the tokens
    await bootstrap.apply(parseBootstrapFile(JSON.stringify(file())));
    expect(await familyOf(alice[0].refresh_token)).toMatchObject({ revoked_reason: null });

    await bootstrap.apply(parseBootstrapFile(JSON.stringify(file('alice-new-password'))));
    await expectInvalidGrant(await refresh(alice[0].refresh_token));
    await expectInvalidGrant(await refresh(alice[1].refresh_token, 'tenant-a', 'app-a2'));
    expect(await familyOf(alice[0].refresh_token)).toMatchObject({ revoked_reason: 'password_changed' });
    await refresh(bob.refresh_token).expect(200);
    await bootstrap.apply(parseBootstrapFile(JSON.stringify(file())));
  });
});
