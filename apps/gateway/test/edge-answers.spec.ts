import { RunningGateway } from '../src/app/start-gateway';
import { bootGateway } from './support/boot';
import { call, CallResult } from './support/client';
import { EchoUpstream } from './support/echo-upstream';
import { RawAnswer, rawExchange } from './support/raw';

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

  /** HTTP/1.1 framing refused at the HTTPS listener (docs/gateway.md, HTTP edges), never forwarded. */
  describe('HTTP edges', () => {
    const httpsRaw = (bytes: string) => rawExchange(gw.httpsPort, bytes, true);
    const forwarded = () => Object.values(upstreams).flatMap((u) => u?.hits ?? []);
    beforeEach(() => Object.values(upstreams).forEach((u) => u?.hits.splice(0)));

    function expectClosingProblem(res: RawAnswer, status: number, code: string): void {
      expect(res.status).toBe(status);
      expectProblem(res, JSON.parse(res.body), status, code);
      expect(res.headers.connection).toBe('close');
      expect(res.headers['strict-transport-security']).toBe(HSTS);
    }

    it.each([
      ['the same', 'user-api.localhost', 'user-api.localhost'],
      ['different', 'user-api.localhost', 'records-api.localhost'],
    ])('refuses a request with two Host headers (%s values) with 400, not forwarded', async (_, first, second) => {
      const res = await httpsRaw(
        `GET /api/v1/x HTTP/1.1\r\nHost: ${first}\r\nHost: ${second}\r\nx-request-id: two-hosts\r\n\r\n`,
      );
      expectClosingProblem(res, 400, 'request_error');
      expect(res.headers['x-request-id']).toBe('two-hosts');
      expect(forwarded()).toEqual([]);
    });

    const CHUNKED_BODY = '2\r\n{}\r\n0\r\n\r\n';
    it.each([
      ['gzip, chunked', ['gzip, chunked'], CHUNKED_BODY],
      ['x-custom, chunked', ['x-custom, chunked'], CHUNKED_BODY],
      ['gzip then chunked, on two lines', ['gzip', 'chunked'], CHUNKED_BODY],
      ['gzip (chunked not last)', ['gzip'], '{}'],
      ['x-custom (chunked not last)', ['x-custom'], '{}'],
    ])('refuses Transfer-Encoding %s with 501, not forwarded', async (_, codings, body) => {
      const lines = codings.map((c) => `Transfer-Encoding: ${c}\r\n`).join('');
      const res = await httpsRaw(`POST /api/v1/x HTTP/1.1\r\nHost: user-api.localhost\r\n${lines}\r\n${body}`);
      expectClosingProblem(res, 501, 'not_implemented');
      expect(forwarded()).toEqual([]);
    });

    it('refuses chunked applied twice as invalid HTTP/1.1 (400)', async () => {
      const res = await httpsRaw(
        'POST /api/v1/x HTTP/1.1\r\nHost: user-api.localhost\r\nTransfer-Encoding: chunked, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      );
      expectClosingProblem(res, 400, 'request_error');
      expect(forwarded()).toEqual([]);
    });

    it('still forwards a chunked body', async () => {
      const res = await httpsRaw(
        'POST /api/v1/x HTTP/1.1\r\nHost: user-api.localhost\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      );
      expect(res.status).toBe(200);
      expect(forwarded()).toHaveLength(1);
    });

    it.each(['HTTP/2.0', 'HTTP/2', 'HTTP/3.0', 'HTTP/0.9'])('answers a %s request line with 505', async (version) => {
      const res = await httpsRaw(`GET /api/v1/x ${version}\r\nHost: user-api.localhost\r\nx-request-id: v-1\r\n\r\n`);
      expectClosingProblem(res, 505, 'http_version_not_supported');
      expect(forwarded()).toEqual([]);
    });

    it('answers a version that is not one (HTTP/1.x) as invalid HTTP/1.1 (400)', async () => {
      const res = await httpsRaw('GET /api/v1/x HTTP/1.x\r\nHost: user-api.localhost\r\n\r\n');
      expectClosingProblem(res, 400, 'request_error');
    });

    it('answers plain HTTP with https_required whatever the framing (nothing is forwarded there)', async () => {
      for (const bytes of [
        'GET /api/v1/x HTTP/1.1\r\nHost: user-api.localhost\r\nHost: records-api.localhost\r\n\r\n',
        'POST /api/v1/x HTTP/1.1\r\nHost: user-api.localhost\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
        'GET /api/v1/x HTTP/2.0\r\nHost: user-api.localhost\r\n\r\n',
      ]) {
        const res = await rawExchange(gw.httpPort, bytes, false);
        expect(res.status).toBe(400);
        expect(JSON.parse(res.body)).toMatchObject({ code: 'https_required' });
      }
      expect(forwarded()).toEqual([]);
    });
  });
});
