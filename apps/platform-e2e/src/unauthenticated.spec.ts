import { SignJWT, importJWK, decodeJwt, type JWK } from 'jose';
import { Client } from 'pg';
import { ann, call, Module, setupValue } from '../support/client';

/** Signs with the developer module's own key (read from its database) to build an expired token. */
async function expiredToken(valid: string): Promise<string> {
  const dbs = JSON.parse(setupValue('E2E_DATABASES'));
  const url = new URL(setupValue('E2E_ADMIN_URL'));
  url.pathname = `/${dbs['developer-service']}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT kid, private_jwk FROM signing_keys ORDER BY created_at DESC LIMIT 1');
    const jwk = (typeof rows[0].private_jwk === 'string' ? JSON.parse(rows[0].private_jwk) : rows[0].private_jwk) as JWK;
    const key = await importJWK(jwk, 'ES256');
    const claims = decodeJwt(valid);
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ ...claims, iat: now - 3600, exp: now - 60 })
      .setProtectedHeader({ alg: 'ES256', kid: rows[0].kid, typ: 'JWT' })
      .sign(key);
  } finally {
    await client.end();
  }
}

const protectedRoutes: Array<[Module, string, string]> = [
  ['user', 'GET', '/accounts/username/ann%40alpha.example'],
  ['user', 'POST', '/accounts'],
  ['user', 'DELETE', '/accounts/logout'],
  ['records', 'POST', '/vault'],
  ['records', 'GET', '/vault/check-email?emailUsername=someone'],
];

describe('modules refuse calls without a valid token', () => {
  let tokens: Record<string, string | undefined>;

  beforeAll(async () => {
    const valid = await ann();
    const [h, p, s] = valid.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    tokens = {
      missing: undefined,
      junk: 'not-a-jwt',
      algNone: `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`,
      tampered: `${h}.${Buffer.from(JSON.stringify({ ...payload, tid: 'beta' })).toString('base64url')}.${s}`,
      expired: await expiredToken(valid),
    };
  });

  for (const [module, method, path] of protectedRoutes) {
    it(`${module} ${method} ${path} answers 401 for every bad token`, async () => {
      for (const [label, token] of Object.entries(tokens)) {
        const res = await call(module, method, path, { token, body: method === 'GET' ? undefined : {} });
        expect({ label, status: res.status }).toEqual({ label, status: 401 });
        expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
        expect(res.body.code).toBe('unauthorized');
      }
    });
  }
});
