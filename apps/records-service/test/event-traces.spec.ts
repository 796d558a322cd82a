import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import {
  OtlpReceiver,
  ReceivedSpan,
  ServiceProcess,
  startServiceProcess,
  stopServiceProcess,
  TestDatabase,
  TestIdentityProvider,
  TestNatsServer,
} from '@vault/platform/testing';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { createRecordsDatabase } from './records-database';

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_PRODUCER = 4;
const SPAN_KIND_CONSUMER = 5;
const EVENTS_SCOPE = '@vault/platform/events';

/**
 * One trace from an HTTP request through the outbox, the relay and NATS into the
 * activity-log writer: records-service runs as a real process (relay and writer
 * inline) exporting its spans to an in-test OTLP receiver.
 */
describe('trace context carried through the outbox and NATS headers', () => {
  jest.setTimeout(120_000);
  let nats: TestNatsServer;
  let db: TestDatabase;
  let idp: TestIdentityProvider;
  let otlp: OtlpReceiver;
  let service: ServiceProcess;
  let pg: Client;

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await createRecordsDatabase('event_traces');
    idp = await TestIdentityProvider.start();
    otlp = await OtlpReceiver.start();
    service = await startServiceProcess('records-service', {
      ...idp.env(),
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace('traces'),
      OUTBOX_RELAY_POLL_MS: '200',
      WEBHOOK_DISPATCHER: 'off',
      VAULT_PLANS_FILE: '',
      VAULT_BRANDING_FILE: '',
      VAULT_INBOX_DOMAIN: 'inbox.vault.localhost',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'records-service',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    pg = new Client({ connectionString: db.url });
    await pg.connect();
  });

  afterAll(async () => {
    await stopServiceProcess(service);
    await pg?.end();
    await otlp?.stop();
    await idp?.stop();
    await db?.drop();
    await nats?.dispose();
  });

  it('joins the HTTP request, the relay publish and the activity-log writer in one trace', async () => {
    const token = await idp.token({ sub: `vault|${randomUUID()}`, tid: 'tenant-traces', username: 'tracy' });
    const res = await fetch(`${service.base}/api/v1/vault`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Traced vault' }),
    });
    expect(res.status).toBe(201);
    const vaultId = ((await res.json()) as { id: string }).id;

    const request = await otlp.waitFor(
      (s) =>
        s.kind === SPAN_KIND_SERVER &&
        s.attributes['http.method'] !== 'GET' &&
        /\/api\/v1\/vault$/.test(String(s.attributes['http.target'] ?? s.attributes['url.path'] ?? '')),
    );
    // both outbox rows of the change (vault and licence created) kept the request's trace context (W3C traceparent)
    const rows = (await pg.query(`SELECT id, trace_context FROM outbox_events WHERE vault_id = $1`, [vaultId])).rows;
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(JSON.parse(row.trace_context).traceparent).toMatch(new RegExp(`^00-${request.traceId}-[0-9a-f]{16}-01$`));
    }

    const inTrace = (pred: (s: ReceivedSpan) => boolean) => otlp.waitFor((s) => s.traceId === request.traceId && pred(s), 30_000);
    const isPublish = (s: ReceivedSpan) => s.scope === EVENTS_SCOPE && s.kind === SPAN_KIND_PRODUCER;
    for (const row of rows) await inTrace((s) => isPublish(s) && s.attributes['messaging.message.id'] === row.id);
    const consume = await inTrace(
      (s) => s.scope === EVENTS_SCOPE && s.kind === SPAN_KIND_CONSUMER && s.name === 'activity_log_writer process',
    );
    // the writer's handler is the child of a relay publish (traceparent NATS header),
    // each publish the child of a span of the request that wrote its row
    const publishes = otlp.spans.filter((s) => s.traceId === request.traceId && isPublish(s));
    expect(publishes.map((s) => s.spanId)).toContain(consume.parentSpanId);
    const requestSpanIds = new Set(otlp.spans.filter((s) => s.traceId === request.traceId && !isPublish(s)).map((s) => s.spanId));
    for (const p of publishes) expect(requestSpanIds.has(p.parentSpanId)).toBe(true);
    // the writer's INSERT runs inside the consumer span
    await inTrace((s) => s.scope.includes('pg') && s.parentSpanId === consume.spanId);
    await waitFor(
      async () => (await pg.query(`SELECT 1 FROM activity_log_entries WHERE vault_id = $1`, [vaultId])).rowCount === 2,
      15_000,
      'the activity-log entry of the vault',
    );
  });
});
