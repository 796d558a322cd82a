import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { corsOriginsBucket, corsOriginsKey } from '@vault/contracts';
import { metricsRegistry } from '@vault/platform/observability';
import { randomBytes } from 'node:crypto';
import { RunningGateway } from '../src/app/start-gateway';
import { CorsService } from '../src/capabilities/cors/cors.service';
import { bootGateway } from './support/boot';
import { call } from './support/client';
import { EchoUpstream } from './support/echo-upstream';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const APP = 'http://127.0.0.1:5173';
const OTHER = 'https://elsewhere.example';

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function unregisteredCount(kind: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('gateway_cors_unregistered_origin_total')?.get();
  return metric?.values.find((v) => v.labels['kind'] === kind)?.value ?? 0;
}

/**
 * CORS at the gateway (docs/gateway.md): origins learnt from the developer module's KV
 * bucket, preflights answered without reaching a module, CORS headers on every answer to
 * a registered origin, none (and a count) for the others.
 */
describe('gateway CORS', () => {
  const namespace = `cors_${randomBytes(4).toString('hex')}`;
  let nc: NatsConnection;
  let kv: KV;
  let upstream: EchoUpstream;
  let gw: RunningGateway;
  const https = (o: Parameters<typeof call>[1]) => call(gw.httpsPort, o);

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    kv = await new Kvm(nc).create(corsOriginsBucket(namespace), { history: 1 });
    // Registered before the gateway starts: its first replay has it.
    await kv.put(corsOriginsKey('web-app'), JSON.stringify({ clientId: 'web-app', tenantId: 't1', origins: [APP] }));
    upstream = await EchoUpstream.start('records');
    gw = await bootGateway({
      EVENTS_NAMESPACE: namespace,
      NATS_URL,
      DEVELOPER_SERVICE_URL: upstream.url,
      USER_SERVICE_URL: upstream.url,
      RECORDS_SERVICE_URL: upstream.url,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => {
    await gw?.app.close();
    await upstream?.stop();
    await kv?.destroy().catch(() => undefined);
    await nc?.close();
  });

  const preflight = (origin: string, method = 'PUT', extra: Record<string, string> = {}) =>
    https({
      host: 'records-api.localhost',
      method: 'OPTIONS',
      path: '/api/v1/anything',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, tus-resumable',
        ...extra,
      },
    });

  it('answers a preflight of a registered origin itself', async () => {
    const hits = upstream.hits.length;
    const res = await preflight(APP);
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'access-control-max-age': '600',
      vary: 'Origin',
      'x-content-type-options': 'nosniff',
    });
    const allowed = String(res.headers['access-control-allow-headers']).split(', ');
    for (const h of [
      'Authorization',
      'Content-Type',
      'Idempotency-Key',
      'If-Match',
      'If-None-Match',
      'Last-Event-ID',
      'X-Request-Id',
      'Tus-Resumable',
      'Upload-Offset',
      'Upload-Length',
      'Upload-Metadata',
    ]) {
      expect(allowed).toContain(h);
    }
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(upstream.hits.length).toBe(hits);
  });

  it('puts the CORS headers on relayed answers and the gateway own, keeping the module Vary', async () => {
    const res = await https({
      host: 'records-api.localhost',
      path: '/api/v1/anything',
      headers: {
        origin: APP,
        'x-test-response-headers': JSON.stringify({ vary: 'Accept-Encoding', 'access-control-allow-origin': '*', etag: '"1"' }),
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['vary']).toBe('Accept-Encoding, Origin');
    const exposed = String(res.headers['access-control-expose-headers']).split(', ');
    for (const h of [
      'ETag',
      'Location',
      'RateLimit',
      'RateLimit-Policy',
      'Retry-After',
      'X-Request-Id',
      'WWW-Authenticate',
      'Upload-Offset',
      'Upload-Length',
      'Tus-Resumable',
      'Repr-Digest',
      'Idempotency-Replayed',
    ]) {
      expect(exposed).toContain(h);
    }
    // the gateway's own answer (unknown host) is readable by the page too
    const own = await https({ host: 'nope.localhost', path: '/x', headers: { origin: APP } });
    expect(own.status).toBe(404);
    expect(own.headers['access-control-allow-origin']).toBe(APP);
    // without Origin: no CORS headers, but Vary all the same
    const plain = await https({ host: 'records-api.localhost', path: '/api/v1/anything' });
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    expect(plain.headers['vary']).toBe('Origin');
  });

  it('refuses a preflight of an unregistered origin with 403 and sends it no CORS headers, counting both', async () => {
    const [preflights, requests] = [await unregisteredCount('preflight'), await unregisteredCount('request')];
    const res = await preflight(OTHER);
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, code: 'forbidden' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const actual = await https({ host: 'records-api.localhost', path: '/api/v1/anything', headers: { origin: OTHER } });
    expect(actual.status).toBe(200);
    expect(actual.headers['access-control-allow-origin']).toBeUndefined();
    expect(actual.headers['access-control-expose-headers']).toBeUndefined();
    // the literal origin `null` (sandboxed frames, files) is just as unregistered
    expect((await preflight('null')).status).toBe(403);
    expect(await unregisteredCount('preflight')).toBe(preflights + 2);
    expect(await unregisteredCount('request')).toBe(requests + 1);
  });

  it('answers a malformed preflight with 400 and a module page (same origin) without CORS', async () => {
    const bad = await preflight(APP, 'TRACE');
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'validation_failed' });
    const own = await https({
      host: 'records-api.localhost',
      path: '/api/v1/anything',
      headers: { origin: `https://developer-api.localhost:${gw.httpsPort}` },
    });
    expect(own.headers['access-control-allow-origin']).toBeUndefined();
    // OPTIONS without Access-Control-Request-Method is no preflight: it goes to the module
    const hits = upstream.hits.length;
    const options = await https({
      host: 'records-api.localhost',
      method: 'OPTIONS',
      path: '/api/v1/anything',
      headers: { origin: APP },
    });
    expect(options.status).toBe(200);
    expect(upstream.hits.length).toBe(hits + 1);
  });

  it('follows the bucket: an origin added later is allowed, a removed one no more', async () => {
    const origins = gw.app.get(CorsService).origins;
    const later = 'https://later.example:8443';
    await kv.put(corsOriginsKey('second~app'), JSON.stringify({ clientId: 'second~app', tenantId: 't2', origins: [later, APP] }));
    await until(() => origins.has(later));
    expect((await preflight(later)).status).toBe(204);
    await kv.delete(corsOriginsKey('web-app'));
    await until(() => origins.size === 2 && origins.has(APP));
    // APP is still listed by the second application
    expect((await preflight(APP)).status).toBe(204);
    await kv.delete(corsOriginsKey('second~app'));
    await until(() => origins.size === 0);
    expect((await preflight(APP)).status).toBe(403);
  });
});
