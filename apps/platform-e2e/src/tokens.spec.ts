import { createRemoteJWKSet, jwtVerify } from 'jose';
import { call, hostOf } from '../support/client';

const authPath = (tenant: string, client: string) => `/tenant/tenant-id/${tenant}/applications/client-id/${client}/auth`;
const testPath = (tenant: string, client: string) => `/tenant/tenant-id/${tenant}/applications/client-id/${client}/test`;

const good = { clientSecret: 'alpha-prod-secret', username: 'ann@alpha.example', password: 'ann-password-1' };

describe('token issuance through the gateway', () => {
  it('issues a verifiable ES256 bearer token from a JSON body', async () => {
    const res = await call('developer', 'POST', authPath('alpha', 'alpha-prod'), { body: good });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      expires_in: expect.any(Number),
      token_type: 'Bearer',
      refresh_token: expect.any(String),
    });
    expect(res.body.expires_in).toBeGreaterThan(0);

    const jwks = createRemoteJWKSet(
      new URL(`http://127.0.0.1:${process.env['E2E_DEVELOPER_PORT']}/api/v1/.well-known/jwks.json`),
    );
    const { payload, protectedHeader } = await jwtVerify(res.body.access_token, jwks, {
      audience: 'vault-api',
      algorithms: ['ES256'],
    });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload.sub).toMatch(/^vault\|/);
    expect(payload).toMatchObject({ tid: 'alpha', cid: 'alpha-prod' });
    expect(payload.jti).toEqual(expect.any(String));
    expect(Number(payload.exp) - Number(payload.iat)).toBe(res.body.expires_in);
  });

  it('issues a token from a form-encoded body', async () => {
    const res = await call('developer', 'POST', authPath('alpha', 'alpha-prod'), { form: good });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
  });

  it('serves the JWKS through the gateway', async () => {
    const res = await call('developer', 'GET', '/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', kid: expect.any(String) });
    expect(res.body.keys[0].d).toBeUndefined();
  });

  const failures: Array<[string, string, string, Record<string, string>]> = [
    ['wrong secret', 'alpha', 'alpha-prod', { ...good, clientSecret: 'nope' }],
    ['unknown user', 'alpha', 'alpha-prod', { ...good, username: 'nobody@alpha.example' }],
    ['wrong password', 'alpha', 'alpha-prod', { ...good, password: 'wrong-password' }],
    ['unknown tenant', 'gamma', 'alpha-prod', good],
    ['unknown client', 'alpha', 'no-such-app', good],
    ['tenant mismatch (client of another tenant)', 'beta', 'alpha-prod', good],
    ['user of another tenant', 'beta', 'beta-app', { ...good, clientSecret: 'beta-secret' }],
  ];

  it.each(failures)('answers the same 401 for %s', async (_label, tenant, client, body) => {
    const res = await call('developer', 'POST', authPath(tenant, client), { body });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const { requestId, ...rest } = res.body;
    expect(requestId).toEqual(expect.any(String));
    expect(rest).toEqual({
      type: expect.any(String),
      title: 'Unauthorized',
      status: 401,
      detail: expect.any(String),
      code: 'invalid_credentials',
    });
    expect(res.body.access_token).toBeUndefined();
  });

  it('gives every credential failure an identical body apart from the request id', async () => {
    const bodies = await Promise.all(
      failures.map(async ([, t, c, b]) => {
        const { requestId: _r, ...rest } = (await call('developer', 'POST', authPath(t, c), { body: b })).body;
        return JSON.stringify(rest);
      }),
    );
    expect(new Set(bodies).size).toBe(1);
  });

  it('lists missing fields with a 400', async () => {
    const res = await call('developer', 'POST', authPath('alpha', 'alpha-prod'), { body: { username: 'x' } });
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['clientSecret', 'password']));
  });

  it('throttles repeated failures with 429 and Retry-After', async () => {
    const body = { clientSecret: 'alpha-test-secret', username: 'bob@alpha.example', password: 'bad' };
    let last = await call('developer', 'POST', authPath('alpha', 'alpha-test'), { body });
    for (let i = 0; i < 12 && last.status !== 429; i++) {
      last = await call('developer', 'POST', authPath('alpha', 'alpha-test'), { body });
    }
    expect(last.status).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(last.body.code).toBe('too_many_requests');
  });

  describe('GET .../test', () => {
    it('answers {redirectUrl} carrying a working token for a test application', async () => {
      const res = await call('developer', 'GET', `${testPath('alpha', 'alpha-test')}?responseType=redirect_url`);
      expect(res.status).toBe(200);
      const url = new URL(res.body.redirectUrl);
      expect(`${url.origin}${url.pathname}`).toBe('https://app.alpha.example/callback');
      const token = new URLSearchParams(url.hash.slice(1)).get('access_token');
      expect(token).toEqual(expect.any(String));
      const check = await call('user', 'GET', '/accounts/username/someone%40alpha.example/check', { token: String(token) });
      expect(check.status).not.toBe(401);
    });

    it('answers an HTML page with responseType=html', async () => {
      const res = await call('developer', 'GET', `${testPath('alpha', 'alpha-test')}?responseType=html`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toMatch(/<html/i);
    });

    it('is refused for an application not in test mode', async () => {
      const res = await call('developer', 'GET', `${testPath('alpha', 'alpha-prod')}?responseType=redirect_url`);
      expect(res.status).toBe(403);
      expect(res.body.code).toEqual(expect.any(String));
    });
  });

  it('routes the developer host only to the developer module', async () => {
    const res = await call('user', 'POST', authPath('alpha', 'alpha-prod'), { body: good });
    expect(res.status).not.toBe(200);
    expect(hostOf('user')).toMatch(/^user-api\./);
  });
});
