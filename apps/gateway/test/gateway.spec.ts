import { Agent as HttpAgent } from 'node:http';
import type { Socket, TcpNetConnectOpts } from 'node:net';
import { Readable } from 'node:stream';
import { RunningGateway } from '../src/app/start-gateway';
import { bootGateway } from './support/boot';
import { call, generatedBody } from './support/client';
import { closedPort, EchoUpstream } from './support/echo-upstream';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const UPLOAD_PATH = '/api/v1/vault/vault-id/v-1/records/record-id/r-1/record-files';
const UPLOAD_LIMIT = 64 * 1024 * 1024;

describe('gateway in front of real upstreams', () => {
  let developer: EchoUpstream;
  let user: EchoUpstream;
  let records: EchoUpstream;
  let gw: RunningGateway;
  let ca: string;
  const allHits = () => developer.hits.length + user.hits.length + records.hits.length;
  const https = (o: Parameters<typeof call>[1]) => call(gw.httpsPort, { ca, ...o });
  /** Every connection an HTTP agent opens in this process, with its options (the proxy's own among them). */
  const upstreamConnections = jest.spyOn(
    HttpAgent.prototype as unknown as { createConnection: (options: TcpNetConnectOpts) => Socket },
    'createConnection',
  );

  beforeAll(async () => {
    developer = await EchoUpstream.start('developer');
    user = await EchoUpstream.start('user');
    records = await EchoUpstream.start('records');
    gw = await bootGateway({
      GATEWAY_DOMAIN: 'vault.test',
      DEVELOPER_SERVICE_URL: developer.url,
      USER_SERVICE_URL: user.url,
      RECORDS_SERVICE_URL: records.url,
      MAX_JSON_BODY_BYTES: '1024',
      MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT),
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '100000',
    });
    ca = gw.tls.cert;
  });
  afterAll(async () => {
    upstreamConnections.mockRestore();
    await gw?.app.close();
    await developer?.stop();
    await user?.stop();
    await records?.stop();
  });
  beforeEach(() => {
    developer.hits.length = 0;
    user.hits.length = 0;
    records.hits.length = 0;
  });

  it('routes by the module part of the Host, port ignored, path and query kept', async () => {
    const d = await https({ host: 'developer-api.vault.test:8443', path: '/api/v1/tenant/t/x?a=1&b=2' });
    expect(d.status).toBe(200);
    expect(d.json()).toMatchObject({ upstream: 'developer', method: 'GET', url: '/api/v1/tenant/t/x?a=1&b=2' });
    const u = await https({ host: 'USER-API.vault.test', method: 'DELETE', path: '/api/v1/accounts/logout' });
    expect(u.json()).toMatchObject({ upstream: 'user', method: 'DELETE', url: '/api/v1/accounts/logout' });
    expect(u.json<{ headers: Record<string, string> }>().headers.host).toBe('USER-API.vault.test');
    expect(u.headers['x-upstream']).toBe('user');
    expect(developer.hits).toHaveLength(1);
    expect(user.hits).toHaveLength(1);
  });

  it('answers an unknown host with a 404 problem and contacts no upstream', async () => {
    for (const host of ['admin-api.vault.test', 'user-api.other.test', 'vault.test', '127.0.0.1:8443']) {
      const res = await call(gw.httpsPort, { host: 'user-api.vault.test', headers: { host } });
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 404, code: 'unknown_host', requestId: res.headers['x-request-id'] });
    }
    expect(allHits()).toBe(0);
  });

  it('answers its own health endpoints for any host and never proxies them', async () => {
    for (const host of ['user-api.vault.test', 'developer-api.vault.test', 'nothing.example']) {
      const sni = { host: 'user-api.vault.test', headers: { host } };
      const live = await https({ ...sni, path: '/health/live' });
      expect(live.status).toBe(200);
      expect(live.json()).toEqual({ status: 'ok' });
      const ready = await https({ ...sni, path: '/health/ready?probe=1' });
      expect(ready.status).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ok', info: { lifecycle: { status: 'up' } } });
    }
    expect(allHits()).toBe(0);
  });

  it('refuses every plain-HTTP request with a problem body, no redirect, never proxied', async () => {
    const requests = [
      { host: 'user-api.vault.test', path: '/api/v1/accounts' },
      {
        host: 'developer-api.vault.test',
        method: 'POST',
        path: '/api/v1/x/auth',
        body: '{"a":1}',
        headers: { 'content-type': 'application/json' },
      },
      { host: 'user-api.vault.test', path: '/health/live' },
      { host: 'unknown.example', method: 'PUT', path: '/' },
    ];
    for (const r of requests) {
      const res = await call(gw.httpPort, r, true);
      expect(res.status).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers.connection).toBe('close');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 400, code: 'https_required', requestId: res.headers['x-request-id'] });
    }
    expect(allHits()).toBe(0);
  });

  it('creates a request id, sends it upstream and echoes it', async () => {
    const res = await https({ host: 'user-api.vault.test', path: '/api/v1/a' });
    const id = res.headers['x-request-id'] as string;
    expect(id).toMatch(UUID);
    expect(user.hits[0].headers['x-request-id']).toBe(id);
  });

  it('keeps a safe request id from the client and replaces an unsafe one', async () => {
    const kept = await https({ host: 'user-api.vault.test', headers: { 'x-request-id': 'trace-42.a:b' } });
    expect(kept.headers['x-request-id']).toBe('trace-42.a:b');
    expect(user.hits[0].headers['x-request-id']).toBe('trace-42.a:b');
    const replaced = await https({ host: 'user-api.vault.test', headers: { 'x-request-id': 'bad id <script>' } });
    expect(replaced.headers['x-request-id']).toMatch(UUID);
    expect(user.hits[1].headers['x-request-id']).toBe(replaced.headers['x-request-id']);
  });

  it('sets X-Forwarded-* itself and drops hop-by-hop headers both ways', async () => {
    const res = await https({
      host: 'user-api.vault.test:8443',
      headers: {
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-host': 'evil.example',
        forwarded: 'for=6.6.6.6',
        connection: 'keep-alive, x-private',
        'x-private': 'secret',
        'proxy-authorization': 'Basic abc',
        authorization: 'Bearer token-1',
        'x-custom': 'kept',
      },
    });
    const seen = user.hits[0].headers;
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen['x-forwarded-proto']).toBe('https');
    expect(seen['x-forwarded-host']).toBe('user-api.vault.test:8443');
    expect(seen.forwarded).toBeUndefined();
    expect(seen['x-private']).toBeUndefined();
    expect(seen['proxy-authorization']).toBeUndefined();
    expect(seen.authorization).toBe('Bearer token-1');
    expect(seen['x-custom']).toBe('kept');
    expect(res.headers['x-upstream']).toBe('user');
    expect(res.headers['x-upstream-private']).toBeUndefined();
  });

  it('refuses a JSON body declared above the limit with 413 without contacting the upstream', async () => {
    const res = await https({
      host: 'user-api.vault.test',
      method: 'POST',
      path: '/api/v1/accounts',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ pad: 'x'.repeat(2000) }),
    });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ status: 413, code: 'payload_too_large', requestId: res.headers['x-request-id'] });
    expect(allHits()).toBe(0);
  });

  it('cuts off a chunked JSON body once it passes the limit', async () => {
    const res = await https({
      host: 'user-api.vault.test',
      method: 'POST',
      path: '/api/v1/accounts',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: Readable.from([Buffer.alloc(800, 0x20), Buffer.alloc(800, 0x20)]),
    });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ code: 'payload_too_large' });
  });

  it('forwards bodies within the limit of their route: JSON, and an upload above the JSON limit', async () => {
    const json = await https({
      host: 'user-api.vault.test',
      method: 'POST',
      path: '/api/v1/accounts',
      headers: { 'content-type': 'application/json' },
      body: '{"username":"ana"}',
    });
    expect(json.status).toBe(200);
    expect(json.json()).toMatchObject({ body: '{"username":"ana"}' });
    const chunked = await https({
      host: 'user-api.vault.test',
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]),
    });
    expect(chunked.json()).toMatchObject({ body: '{"a":1}' });
    expect(user.hits[1].headers['transfer-encoding']).toBe('chunked');
    const upload = await https({
      host: 'records-api.vault.test',
      method: 'POST',
      path: `${UPLOAD_PATH}?fileName=a.txt`,
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      body: 'y'.repeat(4096),
    });
    expect(upload.json<{ body: string }>().body).toHaveLength(4096);
  });

  it('holds every route that takes no upload to the JSON limit, whatever the content type', async () => {
    const bodies: Array<{ path: string; method: string; type?: string }> = [
      { path: '/api/v1/vault', method: 'POST', type: 'text/plain' },
      { path: '/api/v1/vault', method: 'POST', type: 'application/octet-stream' },
      { path: '/api/v1/vault', method: 'POST', type: 'application/x-www-form-urlencoded' },
      { path: '/api/v1/vault', method: 'POST' },
      { path: `${UPLOAD_PATH}/a.pdf`, method: 'PUT', type: 'multipart/form-data; boundary=b' },
      { path: UPLOAD_PATH, method: 'PUT', type: 'multipart/form-data; boundary=b' },
    ];
    for (const b of bodies) {
      const res = await https({
        host: 'records-api.vault.test',
        method: b.method,
        path: b.path,
        headers: b.type ? { 'content-type': b.type } : {},
        body: 'y'.repeat(1025),
      });
      expect(res.status).toBe(413);
      expect(res.headers.connection).toBe('close');
      expect(res.json()).toMatchObject({
        code: 'payload_too_large',
        detail: 'The request body exceeds the gateway limit of 1024 bytes for this route (it takes no upload).',
        requestId: res.headers['x-request-id'],
      });
    }
    const chunked = await https({
      host: 'records-api.vault.test',
      method: 'POST',
      path: '/api/v1/vault',
      headers: { 'content-type': 'application/octet-stream' },
      body: Readable.from([Buffer.alloc(800), Buffer.alloc(800)]),
    });
    expect(chunked.status).toBe(413);
    expect(chunked.json()).toMatchObject({ code: 'payload_too_large', requestId: chunked.headers['x-request-id'] });
    expect(allHits()).toBeLessThanOrEqual(1);
    expect(records.hits.filter((h) => h.body.length > 0)).toEqual([]);
  });

  it('holds upload routes to the upload limit', async () => {
    const res = await https({
      host: 'records-api.vault.test',
      method: 'POST',
      path: UPLOAD_PATH,
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      body: generatedBody(UPLOAD_LIMIT + 1).stream,
    });
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({
      code: 'payload_too_large',
      detail: `The request body exceeds the gateway limit of ${UPLOAD_LIMIT} bytes for uploads.`,
      requestId: res.headers['x-request-id'],
    });
  });

  it('passes a body sent in several small writes on an upstream connection with Nagle off', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await https({
        host: 'user-api.vault.test',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Readable.from([Buffer.from('{"part":'), Buffer.from(String(i)), Buffer.from('}')]),
      });
      expect(res.json()).toMatchObject({ body: `{"part":${i}}` });
    }
    // With Nagle's algorithm on, each small write after the first would wait for the
    // upstream's delayed ACK (about 40 ms a request).
    const toUser = upstreamConnections.mock.calls
      .map(([options]) => options)
      .filter((options) => Number(options.port) === Number(new URL(user.url).port));
    expect(toUser.length).toBeGreaterThan(0);
    for (const options of toUser) expect(options).toMatchObject({ noDelay: true, keepAlive: true });
  });

  it('streams a 50 MB upload to the upstream and back', async () => {
    const size = 50 * 1024 * 1024;
    const { stream, sha256 } = generatedBody(size);
    const res = await https({
      host: 'records-api.vault.test',
      method: 'POST',
      path: UPLOAD_PATH,
      headers: { 'content-type': 'multipart/form-data; boundary=b', 'x-test-echo-body': '1' },
      body: stream,
    });
    expect(res.status).toBe(200);
    expect(res.bytes).toBe(size);
    expect(res.sha256).toBe(sha256);
  });
});

describe('gateway in front of a module that is down', () => {
  let gw: RunningGateway;

  beforeAll(async () => {
    gw = await bootGateway({ GATEWAY_DOMAIN: 'localhost', RECORDS_SERVICE_URL: `http://127.0.0.1:${await closedPort()}` });
  });
  afterAll(async () => {
    await gw?.app.close();
  });

  it('answers 502 with a problem body when the upstream is down', async () => {
    const res = await call(gw.httpsPort, { host: 'records-api.localhost', path: '/api/v1/vault' });
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ status: 502, code: 'bad_gateway', requestId: res.headers['x-request-id'] });
  });
});
