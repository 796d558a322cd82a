import { RunningGateway } from '../src/app/start-gateway';
import { bootGateway } from './support/boot';
import { call, CallResult } from './support/client';
import { EchoUpstream } from './support/echo-upstream';
import { rawExchange } from './support/raw';

const HSTS = 'max-age=31536000; includeSubDomains';
const ALWAYS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** Security headers (docs/gateway.md) on every answer, and problem bodies for what never becomes a request. */
describe('gateway answers: security headers and requests that are not proxied', () => {
  const modules = ['developer', 'user', 'records'] as const;
  const upstreams: Partial<Record<(typeof modules)[number], EchoUpstream>> = {};
  let gw: RunningGateway;
  const https = (o: Parameters<typeof call>[1]) => call(gw.httpsPort, o);

  beforeAll(async () => {
    for (const m of modules) upstreams[m] = await EchoUpstream.start(m);
    gw = await bootGateway({
      GATEWAY_DOMAIN: 'localhost',
      DEVELOPER_SERVICE_URL: upstreams.developer?.url ?? '',
      USER_SERVICE_URL: upstreams.user?.url ?? '',
      RECORDS_SERVICE_URL: upstreams.records?.url ?? '',
      MAX_JSON_BODY_BYTES: '1024',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => {
    await gw?.app.close();
    for (const m of modules) await upstreams[m]?.stop();
  });

  function expectSecurityHeaders(res: CallResult, cacheControl: unknown = 'no-store'): void {
    expect(res.headers).toMatchObject({
      ...ALWAYS,
      'strict-transport-security': HSTS,
      'content-security-policy': "frame-ancestors 'none'",
      'cache-control': cacheControl,
    });
  }

  function expectProblem(res: { headers: Record<string, unknown> }, body: unknown, status: number, code: string): void {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({ status, code, requestId: res.headers['x-request-id'] });
  }

  it.each(modules)('sets them on what the %s module answers: success, error, a deliberate Cache-Control', async (m) => {
    const host = `${m}-api.localhost`;
    const ok = await https({ host, path: '/api/v1/anything', headers: { authorization: 'Bearer t' } });
    expect(ok.status).toBe(200);
    expectSecurityHeaders(ok);

    const moduleError = await https({
      host,
      path: '/api/v1/missing',
      headers: {
        'x-test-status': '404',
        'x-test-response-headers': JSON.stringify({ 'cache-control': 'private, no-cache' }),
      },
    });
    expect(moduleError.status).toBe(404);
    expectSecurityHeaders(moduleError);

    const download = await https({
      host,
      path: '/api/v1/file',
      headers: {
        'x-test-response-headers': JSON.stringify({
          'cache-control': 'private, no-cache',
          etag: '"abc"',
          'content-security-policy': "default-src 'none'; sandbox",
          'x-frame-options': 'SAMEORIGIN',
        }),
      },
    });
    expect(download.headers).toMatchObject({
      ...ALWAYS,
      'strict-transport-security': HSTS,
      'cache-control': 'private, no-cache',
      etag: '"abc"',
      'content-security-policy': "default-src 'none'; sandbox; frame-ancestors 'none'",
    });
  });

  it("sets them on the gateway's own answers: health, unknown host, 413, a target that is not a path", async () => {
    // The platform's health answers say `no-cache, no-store, must-revalidate` themselves.
    const live = await https({ host: 'user-api.localhost', path: '/health/live' });
    expect(live.status).toBe(200);
    expectSecurityHeaders(live, expect.stringContaining('no-store'));
    const ready = await https({ host: 'nothing.example', path: '/health/ready' });
    expect(ready.status).toBe(200);
    expectSecurityHeaders(ready, expect.stringContaining('no-store'));

    const unknown = await https({ host: 'billing-api.localhost', path: '/api/v1/x' });
    expectProblem(unknown, unknown.json(), 404, 'unknown_host');
    expectSecurityHeaders(unknown);
    const tooLarge = await https({
      host: 'user-api.localhost',
      method: 'POST',
      path: '/api/v1/accounts',
      body: 'x'.repeat(2000),
    });
    expectProblem(tooLarge, tooLarge.json(), 413, 'payload_too_large');
    expectSecurityHeaders(tooLarge);
    const absolute = await https({ host: 'user-api.localhost', path: 'https://user-api.localhost/api/v1/x' });
    expectProblem(absolute, absolute.json(), 400, 'validation_failed');
    expectSecurityHeaders(absolute);
  });

  it('sets them on plain-HTTP refusals, except HSTS (never sent over plain HTTP)', async () => {
    const res = await call(gw.httpPort, { host: 'user-api.localhost', path: '/api/v1/accounts' }, true);
    expectProblem(res, res.json(), 400, 'https_required');
    expect(res.headers).toMatchObject({
      ...ALWAYS,
      'cache-control': 'no-store',
      'content-security-policy': "frame-ancestors 'none'",
    });
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it.each(['CONNECT user-api.localhost:443', 'BREW /pot', 'GET /a b c', 'PROPFIND /api/v1/x'])(
    'refuses "%s" over plain HTTP with 400 https_required and closes',
    async (requestLine) => {
      const res = await rawExchange(
        gw.httpPort,
        `${requestLine} HTTP/1.1\r\nHost: user-api.localhost\r\nx-request-id: raw-1\r\n\r\n`,
        false,
      );
      expect(res.status).toBe(400);
      expect(res.headers.connection).toBe('close');
      expectProblem(res, JSON.parse(res.body), 400, 'https_required');
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    },
  );

  it('refuses CONNECT over HTTPS as a target that is not a path, with the request id', async () => {
    const res = await rawExchange(
      gw.httpsPort,
      'CONNECT user-api.localhost:443 HTTP/1.1\r\nHost: user-api.localhost\r\nx-request-id: connect-1\r\n\r\n',
      true,
    );
    expect(res.status).toBe(400);
    expect(res.headers['x-request-id']).toBe('connect-1');
    expectProblem(res, JSON.parse(res.body), 400, 'validation_failed');
    expect(res.headers['strict-transport-security']).toBe(HSTS);
    expect(
      Object.values(upstreams)
        .flatMap((u) => u?.hits ?? [])
        .filter((h) => h.method === 'CONNECT'),
    ).toEqual([]);
  });

  it('answers requests that are not valid HTTP with a problem body and a request id', async () => {
    const invalid = await rawExchange(gw.httpsPort, 'GET /api/v1/x HTTP/1.1\r\nHost user-api.localhost\r\n\r\n', true);
    expect(invalid.status).toBe(400);
    expectProblem(invalid, JSON.parse(invalid.body), 400, 'request_error');
    expect(invalid.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(invalid.headers['strict-transport-security']).toBe(HSTS);

    const huge = await rawExchange(
      gw.httpsPort,
      `GET /api/v1/x HTTP/1.1\r\nHost: user-api.localhost\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`,
      true,
    );
    expect(huge.status).toBe(431);
    expectProblem(huge, JSON.parse(huge.body), 431, 'request_error');
  });
});
