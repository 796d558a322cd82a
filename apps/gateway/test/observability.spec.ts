import {
  createTestDatabase,
  freePort,
  OtlpReceiver,
  ReceivedSpan,
  ServiceProcess,
  startServiceProcess,
  TestDatabase,
} from '@vault/platform/testing';
import { call } from './support/client';
import { GatewayProcess, startGatewayProcess } from './support/gateway-process';

const DOMAIN = 'localhost';
const DEV_HOST = `developer-api.${DOMAIN}`;
const TENANT = 'tenant-obs-7f3a';
const CLIENT = 'client-obs-91c2';
const AUTH_PATH = `/api/v1/tenant/tenant-id/${TENANT}/applications/client-id/${CLIENT}/auth`;
const AUTH_TEMPLATE = '/api/v1/tenant/tenant-id/:tenantId/applications/client-id/:clientId/auth';
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

const scrape = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
};

/** Value of one series in a Prometheus text exposition, or undefined when absent. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('metrics and traces of the gateway and a service, as real processes', () => {
  let db: TestDatabase;
  let otlp: OtlpReceiver;
  let developer: ServiceProcess;
  let gateway: GatewayProcess;
  let developerMetricsPort: number;
  let gatewayMetricsPort: number;
  const tracing = (service: string) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });

  beforeAll(async () => {
    db = await createTestDatabase('gateway_observability');
    otlp = await OtlpReceiver.start();
    developerMetricsPort = await freePort();
    gatewayMetricsPort = await freePort();
    developer = await startServiceProcess('developer-service', {
      ...tracing('developer-service'),
      DATABASE_URL: db.url,
      METRICS_PORT: String(developerMetricsPort),
      VAULT_BOOTSTRAP_FILE: '',
    });
    gateway = await startGatewayProcess({
      ...tracing('gateway'),
      GATEWAY_DOMAIN: DOMAIN,
      // Every module host leads to a real service's app port: /metrics must not be found there.
      DEVELOPER_SERVICE_URL: developer.base,
      USER_SERVICE_URL: developer.base,
      RECORDS_SERVICE_URL: developer.base,
      METRICS_PORT: String(gatewayMetricsPort),
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '10',
      // access-log lines are written at level `log`
      LOG_LEVEL: 'log',
      LOG_FORMAT: 'json',
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    developer?.child.kill('SIGTERM');
    await otlp?.stop();
    await db?.drop();
  });

  it('labels request durations by route template, never by the path with its ids', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await call(gateway.httpsPort, {
        host: DEV_HOST,
        method: 'POST',
        path: AUTH_PATH,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientSecret: 'wrong-secret-1', username: 'nobody@x.test', password: 'nothing-here' }),
      });
      expect(res.status).toBe(401);
    }
    const text = await scrape(developerMetricsPort);
    const series = `http_server_request_duration_seconds_count{method="POST",route="${AUTH_TEMPLATE}",status_code="401"}`;
    expect(sample(text, series)).toBe(2);
    expect(text).not.toContain(TENANT);
    expect(text).not.toContain(CLIENT);
    // default process metrics and the NATS connection state come along
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(sample(text, 'nats_connection_up{connection="developer-service"}')).toBe(1);
    // the service's PostgreSQL pool, read at the scrape: connections open, none waiting
    expect(sample(text, 'db_pool_connections{pool="developer-service",state="total"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'db_pool_connections{pool="developer-service",state="waiting"}')).toBe(0);

    const edge = await scrape(gatewayMetricsPort);
    // the gateway has no database
    expect(edge).not.toContain('db_pool_connections{');
    expect(
      sample(edge, 'http_server_request_duration_seconds_count{method="POST",route="developer-api",status_code="401"}'),
    ).toBe(2);
  });

  it('exports no series of components the gateway does not run', async () => {
    const edge = await scrape(gatewayMetricsPort);
    // it verifies no token, has no outbox, consumer, sign-in throttle or file store
    for (const foreign of [
      'jwks_keys_cached',
      'jwks_refresh_failures_total',
      'outbox_backlog_rows',
      'login_throttle_refusals_total',
      'file_bytes_total',
      'jetstream_consumer',
    ]) {
      expect(edge).not.toContain(foreign);
    }
    expect(edge).toContain('# TYPE gateway_rate_limit_rejections_total counter');
  });

  it('writes one access-log line per request, with no token nor query secret, and answers traceresponse', async () => {
    const token = `eyJhbGciOiJFUzI1NiJ9.${Buffer.from(JSON.stringify({ sub: 'u-1', tid: 'tenant-log-5d1e' })).toString('base64url')}.c2lnbmF0dXJlLXNlY3JldA`;
    const res = await call(gateway.httpsPort, {
      host: DEV_HOST,
      path: '/api/v1/.well-known/jwks.json?access_token=QUERY-SECRET-91&code=CODE-77',
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'access-log-req-1' },
    });
    expect(res.status).toBe(200);
    // tracing is on: the answer names the gateway's server span (W3C Trace Context Level 2)
    const traceresponse = String(res.headers['traceresponse'] ?? '');
    expect(traceresponse).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    let line: { message: Record<string, unknown> } | undefined;
    for (let i = 0; i < 50 && !line; i++) {
      line = gateway
        .output()
        .split('\n')
        .filter((l) => l.includes('"context":"Access"') && l.includes('access-log-req-1'))
        .map((l) => JSON.parse(l) as { message: Record<string, unknown> })[0];
      if (!line) await new Promise((r) => setTimeout(r, 100));
    }
    expect(line?.message).toEqual({
      method: 'GET',
      route: 'developer-api',
      status: 200,
      duration_ms: expect.any(Number),
      bytes: expect.any(Number),
      request_id: 'access-log-req-1',
      trace_id: traceresponse.split('-')[1],
      tenant: 'tenant-log-5d1e',
    });
    expect(gateway.output()).not.toMatch(/QUERY-SECRET-91|CODE-77|c2lnbmF0dXJlLXNlY3JldA|access_token/);
  });

  it('serves /metrics only on METRICS_PORT: through the gateway and on the app port it is a 404', async () => {
    for (const host of [DEV_HOST, `user-api.${DOMAIN}`, `records-api.${DOMAIN}`, 'metrics.internal']) {
      const res = await call(gateway.httpsPort, { host, path: '/metrics' });
      expect(res.status).toBe(404);
      expect(res.body.toString()).not.toContain('http_server_request_duration_seconds');
    }
    const direct = await fetch(`${developer.base}/metrics`);
    expect(direct.status).toBe(404);
    expect(await direct.text()).not.toContain('# HELP');
  });

  it('counts the requests the gateway refuses with 429', async () => {
    const before = sample(await scrape(gatewayMetricsPort), 'gateway_rate_limit_rejections_total') ?? 0;
    let refused = 0;
    for (let i = 0; i < 12; i++) {
      const res = await call(gateway.httpsPort, { host: DEV_HOST, path: '/api/v1/.well-known/jwks.json' });
      if (res.status === 429) refused++;
    }
    expect(refused).toBeGreaterThan(0);
    expect(sample(await scrape(gatewayMetricsPort), 'gateway_rate_limit_rejections_total')).toBe(before + refused);
  });

  it('carries one trace from the gateway into the service (W3C traceparent through the proxy)', async () => {
    const isAuthServer = (s: ReceivedSpan) =>
      s.service === 'developer-service' &&
      s.kind === SPAN_KIND_SERVER &&
      String(s.attributes['http.target'] ?? s.attributes['url.path'] ?? '').includes(AUTH_PATH);
    const serviceSpan = await otlp.waitFor(isAuthServer);
    await otlp.waitFor((s) => s.traceId === serviceSpan.traceId && s.service === 'gateway' && s.kind === SPAN_KIND_SERVER);
    const sameTrace = otlp.spans.filter((s) => s.traceId === serviceSpan.traceId);
    const gatewaySpans = sameTrace.filter((s) => s.service === 'gateway');
    expect(gatewaySpans.map((s) => s.kind).sort()).toEqual([SPAN_KIND_SERVER, SPAN_KIND_CLIENT]);
    // the service's server span is the child of the gateway's outgoing request span
    const outgoing = gatewaySpans.find((s) => s.kind === SPAN_KIND_CLIENT);
    expect(serviceSpan.parentSpanId).toBe(outgoing?.spanId);
    // express and pg spans of the service join the same trace
    expect(sameTrace.some((s) => s.service === 'developer-service' && s.kind !== SPAN_KIND_SERVER)).toBe(true);
    // probes and scrapes make no traces
    expect(
      otlp.spans.some((s) => /health|metrics/.test(String(s.attributes['http.target'] ?? s.attributes['url.path'] ?? ''))),
    ).toBe(false);
  });

  it('sends the spans still buffered when a service stops on SIGTERM', async () => {
    const service = 'developer-service-stopping';
    const stopping = await startServiceProcess('developer-service', {
      ...tracing(service),
      // nothing would be exported before the stop without the flush
      OTEL_BSP_SCHEDULE_DELAY: '600000',
      DATABASE_URL: db.url,
      DB_MIGRATE_ON_START: 'false',
      VAULT_BOOTSTRAP_FILE: '',
    });
    const res = await fetch(`${stopping.base}/api/v1/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(otlp.spans.some((s) => s.service === service)).toBe(false);
    const exited = new Promise<number | null>((r) => stopping.child.once('exit', r));
    stopping.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const span = await otlp.waitFor((s) => s.service === service && s.kind === SPAN_KIND_SERVER, 2000);
    expect(span.name).toBe('GET /api/v1/.well-known/jwks.json');
  });
});
