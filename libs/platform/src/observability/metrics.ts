import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The one Prometheus registry of a process: Node's default process metrics and the
 * platform's own series below. Every app serves it at GET /metrics on METRICS_PORT
 * (services, gateway) or on its health server (workers), never on a public route.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** RED per route: method, route template (never the raw path) and status code. */
export const httpRequestDuration = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests served, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

/** Answers replayed from a stored Idempotency-Key answer instead of running again. */
export const idempotencyReplays = new Counter({
  name: 'idempotency_replays_total',
  help: 'Requests answered with the stored answer of their Idempotency-Key, by route template.',
  labelNames: ['route'] as const,
  registers: [metricsRegistry],
});

/** Requests the gateway refused with 429. */
export const rateLimitRejections = new Counter({
  name: 'gateway_rate_limit_rejections_total',
  help: 'Requests the gateway refused with 429 Too Many Requests.',
  registers: [metricsRegistry],
});

/** Outbox rows the relay published to JetStream (acknowledged and marked published). */
export const outboxPublished = new Counter({
  name: 'outbox_relay_published_total',
  help: 'Outbox rows published to JetStream and marked published by this process.',
  labelNames: ['table'] as const,
  registers: [metricsRegistry],
});

/** Messages a durable consumer stored and acknowledged. */
export const consumerProcessed = new Counter({
  name: 'jetstream_consumer_processed_total',
  help: 'Messages a durable JetStream consumer of this process stored and acknowledged.',
  labelNames: ['consumer'] as const,
  registers: [metricsRegistry],
});

/** Messages a durable consumer gave up on and published to its dead-letter subject. */
export const consumerDeadLettered = new Counter({
  name: 'jetstream_consumer_dead_lettered_total',
  help: 'Messages a durable JetStream consumer of this process dead-lettered.',
  labelNames: ['consumer'] as const,
  registers: [metricsRegistry],
});

/** Something that can count its outbox rows not yet published. */
export interface OutboxBacklogSource {
  table: string;
  /** Rows with `published_at IS NULL`. */
  backlog(): Promise<number>;
}

const outboxSources = new Set<OutboxBacklogSource>();

/** Outbox rows not yet published, read from the database at each scrape. */
export const outboxBacklog = new Gauge({
  name: 'outbox_backlog_rows',
  help: 'Outbox rows not yet published to JetStream (read at scrape time).',
  labelNames: ['table'] as const,
  registers: [metricsRegistry],
  async collect() {
    this.reset();
    await Promise.all(
      [...outboxSources].map(async (s) => {
        // A database outage must not fail the whole scrape: the series is left out then.
        const rows = await s.backlog().catch(() => undefined);
        if (rows !== undefined) this.set({ table: s.table }, rows);
      }),
    );
  },
});

/** Reports `source`'s backlog at each scrape until the returned function is called. */
export function watchOutboxBacklog(source: OutboxBacklogSource): () => void {
  outboxSources.add(source);
  return () => outboxSources.delete(source);
}

/** Something that knows whether its NATS connection is up right now. */
export interface ConnectionSource {
  readonly connected: boolean;
}

const natsSources = new Map<string, ConnectionSource>();

/** 1 while the process's NATS connection is up, 0 while it is down or reconnecting. */
export const natsConnectionUp = new Gauge({
  name: 'nats_connection_up',
  help: 'Whether the NATS connection is up (1) or down/reconnecting (0), by connection.',
  labelNames: ['connection'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const [connection, s] of natsSources) this.set({ connection }, s.connected ? 1 : 0);
  },
});

/** Reports the state of the NATS connection `name` at each scrape until the returned function is called. */
export function watchNatsConnection(name: string, source: ConnectionSource): () => void {
  natsSources.set(name, source);
  return () => {
    if (natsSources.get(name) === source) natsSources.delete(name);
  };
}

/** The registry in the Prometheus text format, with its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
