import { call, callPlainHttp, domain } from '../support/client';

describe('gateway edge behaviour', () => {
  it('refuses plain HTTP with a problem body, never a redirect', async () => {
    for (const m of ['developer', 'user', 'records'] as const) {
      const res = await callPlainHttp(m, 'GET', '/api/v1/.well-known/jwks.json');
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers['location']).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('https_required');
    }
  });

  it('answers 404 unknown_host for a host that is not a module', async () => {
    const res = await call('developer', 'GET', '/api/v1/.well-known/jwks.json', {
      host: `billing-api.${domain()}`,
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('unknown_host');
  });

  it('routes each module host to its own service', async () => {
    const docs = await Promise.all(
      (['developer', 'user', 'records'] as const).map((m) => call(m, 'GET', '/api/v1/openapi.json')),
    );
    const titles = docs.map((d) => d.body.info.title);
    expect(titles[0]).toMatch(/Developer/);
    expect(titles[1]).toMatch(/User/);
    expect(titles[2]).toMatch(/Records/);
  });

  it('propagates a caller request id and creates one otherwise', async () => {
    const given = await call('user', 'GET', '/api/v1/nothing-here', { headers: { 'x-request-id': 'e2e-req-42' } });
    expect(given.headers['x-request-id']).toBe('e2e-req-42');
    expect(given.body.requestId).toBe('e2e-req-42');
    const made = await call('user', 'GET', '/api/v1/nothing-here');
    expect(made.headers['x-request-id']).toEqual(expect.any(String));
    expect(made.body.requestId).toBe(made.headers['x-request-id']);
  });

  it('serves its own health endpoints', async () => {
    const res = await call('records', 'GET', '/health/live');
    expect(res.status).toBe(200);
  });
});
