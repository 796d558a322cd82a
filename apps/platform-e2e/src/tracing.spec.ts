import { OtlpReceiver, ReceivedSpan } from '@vault/platform/testing';
import { call } from '../support/client';
import { E2ePlatform, startE2ePlatform, stopE2ePlatform } from '../support/e2e-platform';

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_PRODUCER = 4;
const SPAN_KIND_CONSUMER = 5;
const EVENTS_SCOPE = '@vault/platform/events';

/**
 * One trace from the edge to the last consumer, on a platform of this suite's own with
 * tracing on (OTLP/HTTP to an in-test receiver): the gateway's span of a request, the
 * records-service request it forwarded (W3C traceparent), the relay's publish of the
 * change's outbox row (traceparent NATS header) and the activity-log writer's handler.
 */
describe('traces through the whole platform', () => {
  let otlp: OtlpReceiver;
  let p: E2ePlatform;
  let port: number;

  beforeAll(async () => {
    otlp = await OtlpReceiver.start();
    p = await startE2ePlatform({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      // each app names its spans after itself
      OTEL_SERVICE_NAME: '',
    });
    port = p.launched.ports.https;
  }, 120_000);
  afterAll(async () => {
    if (p) await stopE2ePlatform(p);
    await otlp?.stop();
  });

  it('joins the gateway, records-service, the relay and the activity-log writer in one trace', async () => {
    const auth = await call('developer', 'POST', '/tenant/tenant-id/alpha/applications/client-id/alpha-prod/auth', {
      port,
      body: { clientSecret: 'alpha-prod-secret', username: 'bob@alpha.example', password: 'bob-password-1' },
    });
    expect(auth.status).toBe(200);
    const created = await call('records', 'POST', '/vault', { port, token: auth.body.access_token, body: { name: 'Traced' } });
    expect(created.status).toBe(201);

    // the service's server span is named after the method and route
    const isVaultPost = (s: ReceivedSpan) => s.kind === SPAN_KIND_SERVER && s.name === 'POST /api/v1/vault';
    const service = await otlp.waitFor((s) => s.service.startsWith('records-service') && isVaultPost(s), 30_000);
    const inTrace = (pred: (s: ReceivedSpan) => boolean) => otlp.waitFor((s) => s.traceId === service.traceId && pred(s), 30_000);
    // the gateway's span of the same request: the trace started at the edge
    const edge = await inTrace((s) => s.service.startsWith('gateway') && s.kind === SPAN_KIND_SERVER);
    expect(edge.parentSpanId).toBe('');
    const publish = await inTrace((s) => s.scope === EVENTS_SCOPE && s.kind === SPAN_KIND_PRODUCER);
    const consume = await inTrace(
      (s) => s.scope === EVENTS_SCOPE && s.kind === SPAN_KIND_CONSUMER && s.name === 'activity_log_writer process',
    );
    expect([edge.service, service.service].map((s) => s.split('-')[0])).toEqual(['gateway', 'records']);
    // the publish descends from the service's request, the writer's handler from a publish
    expect(publish.service).toMatch(/^records-service/);
    const publishIds = otlp.spans
      .filter((s) => s.traceId === service.traceId && s.scope === EVENTS_SCOPE && s.kind === SPAN_KIND_PRODUCER)
      .map((s) => s.spanId);
    expect(publishIds).toContain(consume.parentSpanId);
  });
});
