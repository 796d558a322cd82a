import { randomUUID } from 'node:crypto';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { DataSource } from 'typeorm';
import { EventNamespace } from '../jetstream/namespace';
import { OutboxRelay } from './outbox-relay';
import { ensureStream } from '../jetstream/streams';
import { consumeInTrace } from '../../observability/trace-context';
import { createTestDatabase, TestDatabase } from '../../testing/database';
import { TestNatsServer } from '../../testing/nats-server';
import { addOutboxTraceContext, createOutboxTable, insertOutboxEvents } from './outbox-table';

const TABLE = 'trace_outbox';
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * W3C trace context through the outbox (user-service's account events and every other
 * outbox written with insertOutboxEvents): stored with the row while tracing is on,
 * sent as NATS headers by the relay, continued by the consumer; nothing while it is off.
 */
describe('trace context through the outbox, the relay and a consumer', () => {
  jest.setTimeout(60_000);
  let db: TestDatabase;
  let ds: DataSource;
  let server: TestNatsServer;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let relay: OutboxRelay;

  const write = (subject: string) =>
    ds.transaction((m) =>
      insertOutboxEvents(m, TABLE, [{ id: randomUUID(), subject, payload: { subject }, occurredAt: new Date() }]),
    );
  const storedContext = async (subject: string): Promise<string | null> =>
    (await ds.query(`SELECT trace_context FROM ${TABLE} WHERE subject = $1`, [subject]))[0].trace_context;
  const delivered = (subject: string) => jsm.streams.getMessage('TR', { last_by_subj: subject });

  beforeAll(async () => {
    db = await createTestDatabase('outbox_trace');
    ds = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    const q = ds.createQueryRunner();
    await createOutboxTable(q, TABLE);
    await addOutboxTraceContext(q, TABLE);
    await q.release();
    server = await TestNatsServer.start();
    nc = await connect({ servers: server.url });
    jsm = await jetstreamManager(nc);
    await ensureStream(jsm, { name: 'TR', subjects: ['tr.>'], replicas: 1, duplicateWindowMs: 60_000 });
    relay = new OutboxRelay({
      dataSource: ds,
      js: jetstream(nc),
      namespace: new EventNamespace(),
      table: TABLE,
      channel: TABLE,
      listenUrl: db.url,
      batchSize: 10,
      pollIntervalMs: 1000,
      publishTimeoutMs: 5000,
      logger: quiet,
    });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.dispose();
    await ds?.destroy();
    await db?.drop();
  });

  it('stores and sends nothing while tracing is off', async () => {
    await write('tr.off');
    expect(await storedContext('tr.off')).toBeNull();
    expect(await relay.relayOnce()).toBe(1);
    const msg = await delivered('tr.off');
    expect(msg?.header.get('traceparent')).toBe('');
    let active: unknown = 'unset';
    await consumeInTrace('tr_consumer', [{ headers: msg?.header, subject: 'tr.off' }], async () => {
      active = trace.getActiveSpan();
    });
    expect(active).toBeUndefined();
  });

  it('keeps the producer trace from the row through the publish into the handler once tracing is on', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register();
    try {
      const request = trace.getTracer('test').startSpan('POST /accounts');
      const ids = request.spanContext();
      await context.with(trace.setSpan(context.active(), request), () => write('tr.on'));
      request.end();
      expect(JSON.parse((await storedContext('tr.on')) ?? '{}')).toEqual({ traceparent: `00-${ids.traceId}-${ids.spanId}-01` });

      expect(await relay.relayOnce()).toBe(1);
      const publish = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.PRODUCER);
      expect(publish?.name).toBe('tr.on publish');
      expect(publish?.spanContext().traceId).toBe(ids.traceId);
      expect(publish?.parentSpanContext?.spanId).toBe(ids.spanId);
      const msg = await delivered('tr.on');
      expect(msg?.header.get('traceparent')).toBe(`00-${ids.traceId}-${publish?.spanContext().spanId}-01`);

      let inside: string | undefined;
      await consumeInTrace('tr_consumer', [{ headers: msg?.header, subject: 'tr.on' }], async () => {
        inside = trace.getActiveSpan()?.spanContext().spanId;
      });
      const consume = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CONSUMER);
      expect(consume?.name).toBe('tr_consumer process');
      expect(consume?.spanContext().traceId).toBe(ids.traceId);
      expect(consume?.parentSpanContext?.spanId).toBe(publish?.spanContext().spanId);
      expect(inside).toBe(consume?.spanContext().spanId);
    } finally {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    }
  });
});
