import express from 'express';
import type { Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { AccessLogLine } from './access-log';
import { observeRequest, routeTemplate } from './http-metrics';
import { watchJwksCache } from './jwks-metrics';
import { fileBytes, metricsRegistry, watchOutboxBacklog } from './metrics';
import { serveMetrics } from './metrics-server';
import { defaultServiceName, tracingConfigured } from './tracing';

describe('tracing configuration', () => {
  it('is off unless an OTLP endpoint or a traces exporter is named', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingConfigured({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
  });

  it('names the service by the image, the app folder and the worker mode', () => {
    expect(defaultServiceName(['node', '/w/apps/user-service/src/main.ts'], {})).toBe('user-service');
    expect(defaultServiceName(['node', '/w/dist/apps/records-service/main.js', 'activity-log-writer'], {})).toBe(
      'records-service-activity-log-writer',
    );
    expect(defaultServiceName(['node', '/app/main.js'], { APP_NAME: 'gateway' })).toBe('gateway');
    expect(defaultServiceName(['node', '/app/main.js', 'migrate'], { APP_NAME: 'records-service' })).toBe('records-service');
  });
});

describe('request metrics and the metrics endpoint', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    app.use((req, res, next) => {
      observeRequest(req, res, () => routeTemplate(req));
      next();
    });
    app.get('/api/v1/things/thing-id/:thingId', (_req, res) => {
      res.status(204).end();
    });
    app.post('/api/v1/things', (req, res) => {
      if (req.headers['idempotency-key'] === 'seen') res.setHeader('Idempotency-Replayed', 'true');
      res.status(201).end();
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('labels by route template and method, unmatched paths as one label', async () => {
    for (const id of ['a1b2', 'c3d4', 'e5f6']) await fetch(`${base}/api/v1/things/thing-id/${id}`);
    await fetch(`${base}/no/such/path/9z9z`);
    await fetch(`${base}/api/v1/things/thing-id/a1b2`, { method: 'PROPFIND' });
    const text = await metricsRegistry.metrics();
    expect(text).toContain(
      'http_server_request_duration_seconds_count{method="GET",route="/api/v1/things/thing-id/:thingId",status_code="204"} 3',
    );
    expect(text).toContain('http_server_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"} 1');
    expect(text).toContain('method="OTHER",route="unmatched",status_code="404"');
    expect(text).not.toMatch(/a1b2|c3d4|e5f6|9z9z/);
  });

  it('counts replayed Idempotency-Key answers by route', async () => {
    const replays = async () => (await metricsRegistry.getSingleMetric('idempotency_replays_total')?.get())?.values ?? [];
    await fetch(`${base}/api/v1/things`, { method: 'POST', headers: { 'idempotency-key': 'first' } });
    expect(await replays()).toEqual([]);
    await fetch(`${base}/api/v1/things`, { method: 'POST', headers: { 'idempotency-key': 'seen' } });
    await fetch(`${base}/api/v1/things`, { method: 'POST', headers: { 'idempotency-key': 'seen' } });
    expect(await replays()).toEqual([expect.objectContaining({ labels: { route: '/api/v1/things' }, value: 2 })]);
  });

  it('answers only GET and HEAD on /metrics', async () => {
    const answer = async (method: string, url: string) => {
      const res = { status: 0, headers: {} as Record<string, unknown>, body: '' };
      await new Promise<void>((resolve) => {
        const fake = {
          writeHead(status: number, headers: Record<string, unknown>) {
            res.status = status;
            res.headers = headers;
            return fake;
          },
          end(body?: string) {
            res.body = body ?? '';
            resolve();
          },
        };
        serveMetrics({ method, url } as never, fake as never);
      });
      return res;
    };
    const get = await answer('GET', '/metrics?x=1');
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(get.body).toContain('# TYPE http_server_request_duration_seconds histogram');
    expect((await answer('HEAD', '/metrics')).body).toBe('');
    expect((await answer('POST', '/metrics')).status).toBe(405);
    expect((await answer('GET', '/metrics/extra')).status).toBe(404);
  });
});

describe('which series a process exports', () => {
  const names = () => metricsRegistry.getMetricsAsArray().map((m) => m.name);

  it("exports a component's series only once the component started", async () => {
    // Loading the module exports nothing of the components: no zero gauge that would fire an alert.
    for (const name of ['jwks_keys_cached', 'jwks_refresh_failures_total', 'outbox_backlog_rows', 'file_bytes_total']) {
      expect(names()).not.toContain(name);
    }
    expect(names()).not.toContain('gateway_rate_limit_rejections_total');
    const unwatch = watchJwksCache(() => ({ keys: 2, lastRefreshAt: Date.now() }));
    const stop = watchOutboxBacklog({ table: 'outbox_x', backlog: async () => 4 });
    fileBytes.inc({ direction: 'in' }, 10);
    const text = await metricsRegistry.metrics();
    expect(text).toMatch(/^jwks_keys_cached 2$/m);
    expect(text).toMatch(/^jwks_refresh_failures_total 0$/m);
    expect(text).toContain('outbox_backlog_rows{table="outbox_x"} 4');
    expect(text).toContain('file_bytes_total{direction="in"} 10');
    unwatch();
    stop();
  });
});

describe('access log', () => {
  let server: Server;
  let base: string;
  const lines: AccessLogLine[] = [];

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(function (this: Logger, message: unknown) {
      if (message instanceof AccessLogLine) lines.push(message);
    });
    const app = express();
    app.use((req, res, next) => {
      observeRequest(req, res, () => routeTemplate(req), { requestId: () => 'req-1', tenant: () => 'tenant-a' });
      next();
    });
    app.get('/api/v1/things/thing-id/:thingId', (_req, res) => {
      res.status(200).send('hello');
    });
    app.get('/health/live', (_req, res) => {
      res.status(200).end();
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    jest.restoreAllMocks();
    return new Promise((r) => server.close(r));
  });

  it('writes one line per request with its route template, never a path, query secret or token', async () => {
    const res = await fetch(`${base}/api/v1/things/thing-id/t-77?access_token=SECRET-QUERY-1&sig=SIG-2`, {
      headers: {
        authorization: 'Bearer eyJTOKEN.PAYLOAD.SIGNATURE',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
    });
    expect(res.status).toBe(200);
    // no tracing here: no traceresponse, the caller's trace id is logged
    expect(res.headers.get('traceresponse')).toBeNull();
    await fetch(`${base}/health/live`);
    await new Promise((r) => setTimeout(r, 50));
    expect(lines).toHaveLength(1);
    const fields = lines[0].toJSON();
    expect(fields).toEqual({
      method: 'GET',
      route: '/api/v1/things/thing-id/:thingId',
      status: 200,
      duration_ms: expect.any(Number),
      bytes: expect.any(Number),
      request_id: 'req-1',
      trace_id: '0af7651916cd43dd8448eb211c80319c',
      tenant: 'tenant-a',
    });
    expect(fields.bytes).toBeGreaterThan('hello'.length);
    const text = `${lines[0]} ${JSON.stringify(lines[0])}`;
    expect(text).toMatch(/^method=GET route=\/api\/v1\/things\/thing-id\/:thingId status=200 duration_ms=[\d.]+ bytes=\d+ /);
    expect(text).not.toMatch(/t-77|SECRET-QUERY-1|SIG-2|eyJTOKEN|SIGNATURE|access_token/);
  });
});
