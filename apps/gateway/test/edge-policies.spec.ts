import { RunningGateway } from '../src/app/start-gateway';
import { bootGateway } from './support/boot';
import { call } from './support/client';
import { EchoUpstream } from './support/echo-upstream';

describe('gateway rate limit and upstream timeout', () => {
  let upstream: EchoUpstream;
  let gw: RunningGateway;

  beforeAll(async () => {
    upstream = await EchoUpstream.start('user');
    gw = await bootGateway({
      USER_SERVICE_URL: upstream.url,
      DEVELOPER_SERVICE_URL: upstream.url,
      RECORDS_SERVICE_URL: upstream.url,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3',
      UPSTREAM_TIMEOUT_MS: '300',
    });
  });
  afterAll(async () => {
    await gw?.app.close();
    await upstream?.stop();
  });

  it('answers 504 with a problem body when the upstream does not answer in time', async () => {
    const started = Date.now();
    const res = await call(gw.httpsPort, { host: 'user-api.localhost', path: '/api/v1/hang' });
    expect(res.status).toBe(504);
    expect(res.json()).toMatchObject({ status: 504, code: 'gateway_timeout', requestId: res.headers['x-request-id'] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(upstream.hits.map((h) => h.url)).toEqual(['/api/v1/hang']);
  });

  it('limits unauthenticated requests per client address with 429 and Retry-After, health exempt', async () => {
    // The timeout test above used one of the three requests of this minute.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await call(gw.httpsPort, { host: 'developer-api.localhost', path: '/api/v1/x' })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await call(gw.httpsPort, { host: 'records-api.localhost', path: '/api/v1/y' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(limited.json()).toMatchObject({ status: 429, code: 'too_many_requests', requestId: limited.headers['x-request-id'] });
    expect(upstream.hits).toHaveLength(3);
    const live = await call(gw.httpsPort, { host: 'records-api.localhost', path: '/health/live' });
    expect(live.status).toBe(200);
  });
});

describe('gateway behind a trusted proxy', () => {
  let upstream: EchoUpstream;
  let gw: RunningGateway;

  beforeAll(async () => {
    upstream = await EchoUpstream.start('user');
    gw = await bootGateway({
      USER_SERVICE_URL: upstream.url,
      TRUSTED_PROXY_CIDRS: '127.0.0.0/8',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1',
    });
  });
  afterAll(async () => {
    await gw?.app.close();
    await upstream?.stop();
  });

  const from = (forwardedFor: string) =>
    call(gw.httpsPort, { host: 'user-api.localhost', path: '/api/v1/a', headers: { 'x-forwarded-for': forwardedFor } });

  it('takes the client from X-Forwarded-For, forwards only that address and limits per client', async () => {
    expect((await from('6.6.6.6, 203.0.113.7')).status).toBe(200);
    expect(upstream.hits[0].headers['x-forwarded-for']).toBe('203.0.113.7');
    expect((await from('203.0.113.7')).status).toBe(429);
    expect((await from('203.0.113.7, 127.0.0.5')).status).toBe(429);
    expect((await from('198.51.100.4')).status).toBe(200);
    expect(upstream.hits[1].headers['x-forwarded-for']).toBe('198.51.100.4');
    expect(upstream.hits).toHaveLength(2);
  });
});
