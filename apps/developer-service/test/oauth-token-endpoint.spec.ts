import { INestApplication } from '@nestjs/common';
import { bootTestApp, createTestDatabase, TEST_ISSUER, TestDatabase } from '@vault/platform/testing';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import request from 'supertest';
import { AppModule } from '../src/app/app.module';
import { appPath, baseEnv, verifyWithJwks, writeBootstrapFile } from './support';

const FILE = {
  tenants: [
    {
      id: 'tenant-a',
      name: 'Tenant A',
      applications: [{ clientId: 'app-a', clientSecret: 'secret a+b:c' }],
      users: [
        { username: 'alice@a.test', password: 'alice-password' },
        { username: 'dave@a.test', password: 'dave-password' },
      ],
    },
    { id: 'tenant-b', name: 'Tenant B', applications: [{ clientId: 'app-b', clientSecret: 'secret-b-123' }] },
  ],
};
const SECRET = 'secret a+b:c';
const TOKEN_PATH = `${appPath('tenant-a', 'app-a')}/oauth/token`;
const METADATA_PATH = `${appPath('tenant-a', 'app-a')}/.well-known/oauth-authorization-server`;
/** client_secret_basic: id and secret form-encoded, then base64 (RFC 6749 §2.3.1). */
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const MAX_FAILURES = 2;

/** POST .../oauth/token (RFC 6749) and the RFC 8414 metadata, against real PostgreSQL. */
describe('developer-service OAuth 2 token endpoint', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let ipCounter = 0;
  const post = (path = TOKEN_PATH) => request(app.getHttpServer()).post(path).set('X-Forwarded-For', `192.0.2.${++ipCounter}`);
  const passwordGrant = (fields: Record<string, string> = {}) =>
    post()
      .set('Authorization', basic('app-a', SECRET))
      .type('form')
      .send({
        grant_type: 'password',
        username: 'alice@a.test',
        password: 'alice-password',
        ...fields,
      });
  const expectOAuthError = (res: request.Response, status: number, error: string) => {
    expect({ status: res.status, body: res.body }).toEqual({
      status,
      body: { error, error_description: expect.any(String) },
    });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
  };

  beforeAll(async () => {
    db = await createTestDatabase('developer_oauth');
    app = await bootTestApp(AppModule, {
      ...baseEnv(db.url),
      VAULT_BOOTSTRAP_FILE: writeBootstrapFile(FILE),
      AUTH_MAX_FAILURES: String(MAX_FAILURES),
    });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  describe('grant_type=password', () => {
    it('answers an RFC 6749 §5.1 body with a refresh token (client_secret_basic)', async () => {
      const res = await passwordGrant().expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['pragma']).toBe('no-cache');
      expect(res.body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 900,
        refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      const { payload } = await verifyWithJwks(app, res.body.access_token);
      expect(payload).toMatchObject({ tid: 'tenant-a', cid: 'app-a', preferred_username: 'alice@a.test', scope: 'vault' });
    });

    it('takes client_secret_post and scope=vault', async () => {
      const res = await post()
        .type('form')
        .send({
          grant_type: 'password',
          username: 'alice@a.test',
          password: 'alice-password',
          client_id: 'app-a',
          client_secret: SECRET,
          scope: 'vault',
        })
        .expect(200);
      expect(decodeJwt(res.body.access_token).cid).toBe('app-a');
    });

    it('answers invalid_grant for wrong user credentials, invalid_scope for another scope', async () => {
      expectOAuthError(await passwordGrant({ password: 'wrong-password' }), 400, 'invalid_grant');
      expectOAuthError(await passwordGrant({ username: 'nobody@a.test' }), 400, 'invalid_grant');
      expectOAuthError(await passwordGrant({ scope: 'admin' }), 400, 'invalid_scope');
    });

    it('throttles failures like the sign-in route: 429 slow_down with Retry-After, even for the right password', async () => {
      const from = (password: string) =>
        request(app.getHttpServer())
          .post(TOKEN_PATH)
          .set('X-Forwarded-For', '192.0.2.250')
          .set('Authorization', basic('app-a', SECRET))
          .type('form')
          .send({ grant_type: 'password', username: 'dave@a.test', password });
      for (let i = 0; i < MAX_FAILURES; i++) await from('wrong-password');
      const refused = await from('dave-password');
      expectOAuthError(refused, 429, 'slow_down');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });
  });

  describe('client authentication', () => {
    it('answers 401 invalid_client with a Basic challenge for a wrong secret sent with Basic', async () => {
      const res = await post()
        .set('Authorization', basic('app-a', 'wrong-secret'))
        .type('form')
        .send({ grant_type: 'password', username: 'alice@a.test', password: 'alice-password' });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
    });

    it("answers 400 invalid_client for a wrong secret in the form, a missing one, or another client's credentials", async () => {
      const send = (fields: Record<string, string>) =>
        post()
          .type('form')
          .send({ grant_type: 'refresh_token', refresh_token: 'x', ...fields });
      expectOAuthError(await send({ client_id: 'app-a', client_secret: 'wrong' }), 400, 'invalid_client');
      expectOAuthError(await send({ client_id: 'app-a' }), 400, 'invalid_client');
      expectOAuthError(await send({ client_id: 'app-b', client_secret: 'secret-b-123' }), 400, 'invalid_client');
      const elsewhere = await post(`${appPath('tenant-b', 'app-a')}/oauth/token`)
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'app-a', client_secret: SECRET });
      expectOAuthError(elsewhere, 400, 'invalid_client');
    });

    it('refuses two authentication methods at once', async () => {
      const res = await post()
        .set('Authorization', basic('app-a', SECRET))
        .type('form')
        .send({ grant_type: 'refresh_token', refresh_token: 'x', client_secret: SECRET });
      expectOAuthError(res, 400, 'invalid_request');
    });
  });

  describe('bad input', () => {
    const withClient = () => post().set('Authorization', basic('app-a', SECRET));

    it('answers invalid_request without grant_type, unsupported_grant_type for another grant', async () => {
      expectOAuthError(await withClient().type('form').send({ username: 'alice@a.test' }), 400, 'invalid_request');
      expectOAuthError(await withClient().type('form').send({ grant_type: 'client_credentials' }), 400, 'unsupported_grant_type');
      expectOAuthError(
        await withClient().type('form').send({ grant_type: 'authorization_code', code: 'x' }),
        400,
        'unsupported_grant_type',
      );
    });

    it('answers invalid_request for a malformed form, a repeated field, a JSON body and a missing refresh_token', async () => {
      const raw = (body: string, type = 'application/x-www-form-urlencoded') => withClient().set('Content-Type', type).send(body);
      expectOAuthError(await raw('grant_type=refresh_token&refresh_token=%zz'), 400, 'invalid_request');
      expectOAuthError(await raw('grant_type=password&grant_type=refresh_token&refresh_token=x'), 400, 'invalid_request');
      expectOAuthError(await raw('{"grant_type":"refresh_token"}', 'application/json'), 400, 'invalid_request');
      expectOAuthError(await raw('grant_type=refresh_token'), 400, 'invalid_request');
      expectOAuthError(await withClient(), 400, 'invalid_request');
    });

    it('answers invalid_grant for a refresh token that is not one', async () => {
      expectOAuthError(
        await withClient().type('form').send({ grant_type: 'refresh_token', refresh_token: 'forged' }),
        400,
        'invalid_grant',
      );
    });
  });

  describe('metadata (RFC 8414)', () => {
    it("names the issuer of the access tokens, the application's token endpoint and the JWKS", async () => {
      const res = await request(app.getHttpServer()).get(METADATA_PATH).expect(200);
      const base = `${TEST_ISSUER}/tenant/tenant-id/tenant-a/applications/client-id/app-a`;
      expect(res.body).toEqual({
        issuer: TEST_ISSUER,
        token_endpoint: `${base}/oauth/token`,
        jwks_uri: `${TEST_ISSUER}/.well-known/jwks.json`,
        grant_types_supported: ['password', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        response_types_supported: [],
        scopes_supported: ['vault'],
        service_documentation: `${TEST_ISSUER}/docs`,
      });
      // the issuer is the `iss` of the tokens the endpoint issues
      expect(decodeJwt((await passwordGrant().expect(200)).body.access_token).iss).toBe(res.body.issuer);
    });

    it('answers 404 for an unknown application or one of another tenant', async () => {
      await request(app.getHttpServer())
        .get(`${appPath('tenant-b', 'app-a')}/.well-known/oauth-authorization-server`)
        .expect(404);
      await request(app.getHttpServer())
        .get(`${appPath('tenant-a', 'nope')}/.well-known/oauth-authorization-server`)
        .expect(404);
    });
  });

  /**
   * A client library the project did not write (oauth4webapi): it validates the metadata
   * document (the issuer it expects), then runs the refresh_token grant at the token
   * endpoint the document names, with its own client authentication and response checks.
   */
  describe('with oauth4webapi', () => {
    /** The public addresses of the document lead to the app under test (the gateway's job in a deployment). */
    const throughGateway = (url: string, init: oauth.CustomFetchOptions<string, unknown>) =>
      fetch(url.replace(new URL(TEST_ISSUER).origin, new URL(appUrl).origin), init as RequestInit);
    let appUrl: string;

    beforeAll(async () => {
      appUrl = await app.getUrl();
    });

    it.each([
      ['client_secret_basic', oauth.ClientSecretBasic(SECRET)],
      ['client_secret_post', oauth.ClientSecretPost(SECRET)],
    ])('discovers the endpoint from the metadata and refreshes (%s)', async (_, clientAuth) => {
      const as = await oauth.processDiscoveryResponse(new URL(TEST_ISSUER), await fetch(`${appUrl}${METADATA_PATH}`));
      expect(as.token_endpoint).toBe(`${TEST_ISSUER}/tenant/tenant-id/tenant-a/applications/client-id/app-a/oauth/token`);
      const client: oauth.Client = { client_id: 'app-a' };
      const first = (await passwordGrant().expect(200)).body.refresh_token as string;

      const options = { [oauth.customFetch]: throughGateway };
      const answer = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, first, options),
      );
      expect(answer.token_type).toBe('bearer'); // oauth4webapi lower-cases it
      expect(answer.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await verifyWithJwks(app, answer.access_token)).payload.cid).toBe('app-a');

      // the spent token again: the library surfaces the RFC 6749 error
      const reuse = oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, first, options),
      );
      await expect(reuse).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });
    });
  });
});
