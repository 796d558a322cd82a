import { INestApplication } from '@nestjs/common';
import { listRouteRules } from '@vault/platform/auth';
import { bootTestApp, createTestDatabase, TEST_ISSUER, TestDatabase } from '@vault/platform/testing';
import { decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { AppModule } from '../src/app/app.module';
import { API, appPath, baseEnv, verifyWithJwks, writeBootstrapFile } from './support';

const FILE = {
  tenants: [
    {
      id: 'tenant-a',
      name: 'Tenant A',
      applications: [
        {
          clientId: 'app-a',
          clientSecret: 'secret-a-123',
          testMode: true,
          redirectUris: ['https://client.example/cb', 'https://other.example/cb'],
        },
        {
          clientId: 'app-plain',
          clientSecret: 'secret-plain-1',
          testMode: false,
          redirectUris: [],
        },
      ],
      users: [
        { username: 'alice@a.test', password: 'alice-password' },
        { username: 'carol@a.test', password: 'carol-password' },
        { username: 'dave@a.test', password: 'dave-password' },
        { username: 'erin@a.test', password: 'erin-password' },
        { username: 'cora@a.test', password: 'cora-password', roles: ['compliance'] },
      ],
    },
    {
      id: 'tenant-b',
      name: 'Tenant B',
      applications: [{ clientId: 'app-b', clientSecret: 'secret-b-123' }],
      users: [{ username: 'bob@b.test', password: 'bob-password' }],
    },
  ],
};
const ALICE = {
  clientSecret: 'secret-a-123',
  username: 'alice@a.test',
  password: 'alice-password',
};
const MAX_FAILURES = 3;
const MAX_FAILURES_PER_IP = 8;

describe('developer-service tokens', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let ipCounter = 0;
  /** Each test signs in from its own address (X-Forwarded-For from loopback is trusted). */
  let ip: string;
  const post = (path: string) => request(app.getHttpServer()).post(path).set('X-Forwarded-For', ip);
  const auth = (body: object, tenant = 'tenant-a', client = 'app-a') => post(`${appPath(tenant, client)}/auth`).send(body);

  beforeAll(async () => {
    db = await createTestDatabase('developer_tokens');
    app = await bootTestApp(AppModule, {
      ...baseEnv(db.url),
      VAULT_BOOTSTRAP_FILE: writeBootstrapFile(FILE),
      AUTH_MAX_FAILURES: String(MAX_FAILURES),
      AUTH_MAX_FAILURES_PER_IP: String(MAX_FAILURES_PER_IP),
      TOKEN_TTL_SECONDS: '600',
    });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });
  beforeEach(() => {
    ip = `198.51.100.${++ipCounter}`;
  });

  describe('POST .../auth', () => {
    it('issues a token for JSON credentials that verifies against the served JWKS', async () => {
      const res = await auth(ALICE).expect(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        access_token: expect.any(String),
        expires_in: 600,
        token_type: 'Bearer',
        refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });

      const header = decodeProtectedHeader(res.body.access_token);
      const jwks = await request(app.getHttpServer()).get(`${API}/.well-known/jwks.json`).expect(200);
      expect(header).toEqual({
        alg: 'ES256',
        kid: jwks.body.keys[0].kid,
        typ: 'JWT',
      });

      const { payload } = await verifyWithJwks(app, res.body.access_token);
      expect(payload).toEqual({
        iss: TEST_ISSUER,
        aud: 'vault-api',
        sub: expect.stringMatching(/^vault\|[0-9a-f-]{36}$/),
        tid: 'tenant-a',
        cid: 'app-a',
        scope: 'vault',
        preferred_username: 'alice@a.test',
        iat: expect.any(Number),
        exp: expect.any(Number),
        jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
        auth_time: expect.any(Number),
      });
      const { iat = 0, exp = 0 } = payload;
      expect(exp - iat).toBe(600);
      // signed in with the credentials now: the sign-in is the token's issuance
      expect(payload['auth_time']).toBe(iat);
      expect(Math.abs(iat - Date.now() / 1000)).toBeLessThan(30);
    });

    it('carries the tenant roles of the user (a compliance officer) in the roles claim', async () => {
      const res = await auth({ ...ALICE, username: 'cora@a.test', password: 'cora-password' }).expect(200);
      const { payload } = await verifyWithJwks(app, res.body.access_token);
      expect(payload['roles']).toEqual(['compliance']);
      const refreshed = await post(`${appPath('tenant-a', 'app-a')}/oauth/token`)
        .type('form')
        .send({
          grant_type: 'refresh_token',
          refresh_token: res.body.refresh_token,
          client_id: 'app-a',
          client_secret: 'secret-a-123',
        })
        .expect(200);
      expect((await verifyWithJwks(app, refreshed.body.access_token)).payload['roles']).toEqual(['compliance']);
      // a user without roles gets no roles claim
      const plain = await verifyWithJwks(app, (await auth(ALICE).expect(200)).body.access_token);
      expect(plain.payload).not.toHaveProperty('roles');
    });

    it('issues a token for form-encoded credentials, with the same subject every time', async () => {
      const form = await auth({}).type('form').send(ALICE).expect(200);
      const json = await auth(ALICE).expect(200);
      const a = await verifyWithJwks(app, form.body.access_token);
      const b = await verifyWithJwks(app, json.body.access_token);
      expect(a.payload.sub).toBe(b.payload.sub);
      expect(a.payload.jti).not.toBe(b.payload.jti);
    });

    it('matches usernames case-insensitively', async () => {
      const res = await auth({ ...ALICE, username: 'Alice@A.test' }).expect(200);
      const { payload } = await verifyWithJwks(app, res.body.access_token);
      expect(payload['preferred_username']).toBe('alice@a.test');
    });

    it('answers every credential failure with the same 401 body', async () => {
      const cases: Array<[string, object, string, string]> = [
        ['unknown tenant', ALICE, 'tenant-x', 'app-a'],
        ['unknown client', ALICE, 'tenant-a', 'app-x'],
        ['client of another tenant', { ...ALICE, clientSecret: 'secret-b-123' }, 'tenant-a', 'app-b'],
        ['wrong secret', { ...ALICE, clientSecret: 'secret-a-999' }, 'tenant-a', 'app-a'],
        ['unknown user', { ...ALICE, username: 'nobody@a.test' }, 'tenant-a', 'app-a'],
        ['wrong password', { ...ALICE, username: 'erin@a.test', password: 'alice-password' }, 'tenant-a', 'app-a'],
        ['user of another tenant', { ...ALICE, username: 'bob@b.test', password: 'bob-password' }, 'tenant-a', 'app-a'],
      ];
      const bodies = [];
      for (const [name, body, tenant, client] of cases) {
        const res = await auth(body, tenant, client);
        expect({ name, status: res.status }).toEqual({ name, status: 401 });
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body.requestId).toBe(res.headers['x-request-id']);
        const { requestId: _, ...rest } = res.body;
        bodies.push(rest);
      }
      expect(bodies[0]).toMatchObject({
        status: 401,
        code: 'invalid_credentials',
      });
      for (const b of bodies) expect(b).toEqual(bodies[0]);
    });

    it('treats overlong ids as unknown, never as a server error', async () => {
      const res = await auth(ALICE, 'tenant-a', 'x'.repeat(300));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_credentials');
      const test = await request(app.getHttpServer()).get(`${appPath('tenant-a', 'x'.repeat(300))}/test`);
      expect(test.status).toBe(404);
    });

    it('refuses NUL characters in ids and usernames with a 400 naming the field', async () => {
      const inPath = await auth(ALICE, 'tenant%00a', 'app-a');
      expect(inPath.status).toBe(400);
      expect(inPath.body.errors).toEqual([expect.objectContaining({ field: 'tenantId' })]);
      const inBody = await auth({ ...ALICE, username: 'alice\u0000@a.test' }, 'tenant-a', 'app-a');
      expect(inBody.status).toBe(400);
      expect(inBody.body.errors).toEqual([expect.objectContaining({ field: 'username' })]);
      const test = await request(app.getHttpServer()).get(`${appPath('tenant%00a', 'app-a')}/test`);
      expect(test.status).toBe(400);
    });

    it('refuses the right user and secret through a client of another tenant', async () => {
      await auth(
        {
          clientSecret: 'secret-b-123',
          username: 'bob@b.test',
          password: 'bob-password',
        },
        'tenant-b',
        'app-b',
      ).expect(200);
      const res = await auth(
        {
          clientSecret: 'secret-b-123',
          username: 'bob@b.test',
          password: 'bob-password',
        },
        'tenant-a',
        'app-b',
      );
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('invalid_credentials');
    });

    it('lists missing and blank fields in a 400', async () => {
      const missing = await auth({}).expect(400);
      expect(missing.body.code).toBe('validation_failed');
      expect(new Set(missing.body.errors.map((e: { field: string }) => e.field))).toEqual(
        new Set(['clientSecret', 'username', 'password']),
      );
      const blank = await auth({
        clientSecret: '  ',
        username: '',
        password: 'x',
      }).expect(400);
      expect(new Set(blank.body.errors.map((e: { field: string }) => e.field))).toEqual(new Set(['clientSecret', 'username']));
      const form = await auth({}).type('form').send({ username: 'alice@a.test' }).expect(400);
      expect(form.body.errors.map((e: { field: string }) => e.field)).toEqual(
        expect.arrayContaining(['clientSecret', 'password']),
      );
      const extra = await auth({ ...ALICE, admin: true }).expect(400);
      expect(extra.body.errors.map((e: { field: string }) => e.field)).toContain('admin');
    });

    it('throttles repeated failures from one client address', async () => {
      for (let i = 0; i < MAX_FAILURES_PER_IP; i++) {
        await auth({ ...ALICE, username: `guess-${i}@a.test` }).expect(401);
      }
      const res = await auth(ALICE).expect(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      ip = '198.51.100.251';
      await auth(ALICE).expect(200);
    });
  });

  describe('GET .../test', () => {
    const get = (path: string) => request(app.getHttpServer()).get(path);

    it('answers a redirect URL carrying a test token (default and explicit responseType)', async () => {
      for (const query of ['', '?responseType=redirect_url']) {
        const res = await get(`${appPath('tenant-a', 'app-a')}/test${query}`).expect(200);
        expect(res.headers['cache-control']).toBe('no-store');
        const url = new URL(res.body.redirectUrl);
        expect(`${url.origin}${url.pathname}`).toBe('https://client.example/cb');
        const fragment = new URLSearchParams(url.hash.slice(1));
        expect(fragment.get('token_type')).toBe('Bearer');
        expect(fragment.get('expires_in')).toBe('600');
        const { payload } = await verifyWithJwks(app, fragment.get('access_token') ?? '');
        expect(payload).toMatchObject({
          tid: 'tenant-a',
          cid: 'app-a',
          preferred_username: 'test-user',
          scope: 'vault',
        });
        expect(payload.sub).toMatch(/^vault\|[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
    });

    it('answers an HTML page showing the token', async () => {
      const res = await get(`${appPath('tenant-a', 'app-a')}/test?responseType=html`).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      const token = /<textarea id="access_token"[^>]*>([^<]+)<\/textarea>/.exec(res.text)?.[1];
      expect(token).toBeDefined();
      await verifyWithJwks(app, token ?? '');
    });

    it('refuses applications that are not in test mode with 403', async () => {
      const res = await get(`${appPath('tenant-a', 'app-plain')}/test`).expect(403);
      expect(res.body.code).toBe('forbidden');
      await get(`${appPath('tenant-b', 'app-b')}/test?responseType=html`).expect(403);
    });

    it('answers 404 for an unknown tenant or client and a client of another tenant', async () => {
      await get(`${appPath('tenant-x', 'app-a')}/test`).expect(404);
      await get(`${appPath('tenant-a', 'app-x')}/test`).expect(404);
      await get(`${appPath('tenant-b', 'app-a')}/test`).expect(404);
    });

    it('refuses other response types with 400', async () => {
      const res = await get(`${appPath('tenant-a', 'app-a')}/test?responseType=code`).expect(400);
      expect(res.body.errors[0].field).toBe('responseType');
    });
  });

  describe('platform wiring', () => {
    it('serves the JWKS publicly with caching and without private parts', async () => {
      const res = await request(app.getHttpServer()).get(`${API}/.well-known/jwks.json`).expect(200);
      expect(res.headers['cache-control']).toMatch(/public, max-age=\d+/);
      expect(res.body.keys).toHaveLength(1);
      expect(res.body.keys[0]).toEqual({
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: expect.any(String),
        alg: 'ES256',
        use: 'sig',
      });
    });

    it('declares an access rule on every route, all public', () => {
      const rules = listRouteRules(app);
      expect(rules.filter((r) => r.rule === undefined)).toEqual([]);
      expect(rules.map((r) => r.route)).toEqual(
        expect.arrayContaining([
          'POST /tenant/tenant-id/:tenantId/applications/client-id/:clientId/auth',
          'GET /tenant/tenant-id/:tenantId/applications/client-id/:clientId/test',
          'GET /.well-known/jwks.json',
          'POST /tenant/tenant-id/:tenantId/applications/client-id/:clientId/oauth/token',
          'GET /tenant/tenant-id/:tenantId/applications/client-id/:clientId/.well-known/oauth-authorization-server',
        ]),
      );
      expect(rules.every((r) => r.rule === 'public')).toBe(true);
    });

    it('is ready with its database and NATS', async () => {
      const res = await request(app.getHttpServer()).get('/health/ready').expect(200);
      expect(res.body.info).toMatchObject({
        database: { status: 'up' },
        nats: { status: 'up' },
      });
    });

    it('describes its endpoints in OpenAPI', async () => {
      const res = await request(app.getHttpServer()).get(`${API}/openapi.json`).expect(200);
      const auth = res.body.paths['/tenant/tenant-id/{tenantId}/applications/client-id/{clientId}/auth'];
      expect(Object.keys(auth.post.requestBody.content)).toEqual(
        expect.arrayContaining(['application/json', 'application/x-www-form-urlencoded']),
      );
      expect(res.body.components.schemas.TokenRequestDto.required).toEqual(['clientSecret', 'username', 'password']);
      const oauth = res.body.paths['/tenant/tenant-id/{tenantId}/applications/client-id/{clientId}/oauth/token'];
      expect(Object.keys(oauth.post.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
      expect(Object.keys(oauth.post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
      expect(oauth.post.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/OAuthErrorDto');
      expect(res.body.components.schemas.SignInResponseDto.required).toEqual(
        expect.arrayContaining(['access_token', 'expires_in', 'token_type', 'refresh_token']),
      );
      expect(
        res.body.paths['/tenant/tenant-id/{tenantId}/applications/client-id/{clientId}/.well-known/oauth-authorization-server'],
      ).toBeDefined();
    });
  });
});
