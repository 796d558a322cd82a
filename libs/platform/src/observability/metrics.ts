import { collectDefaultMetrics, Counter, Gauge, Histogram, type Metric, Registry } from 'prom-client';

/**
 * The one Prometheus registry of a process: Node's default process metrics and the
 * series of the components the process runs. Every app serves it at GET /metrics on
 * METRICS_PORT (services, gateway) or on its health server (workers), never on a public route.
 *
 * The platform's series below are declared without a registry: each is added to it by the
 * component that owns it, when that component starts (exportMetrics, the `watch…`
 * functions, a counter's first increment). So a process exports only the series of what
 * it runs: the gateway has no `jwks_keys_cached` (it verifies no token), a worker no
 * `gateway_rate_limit_rejections_total`.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Adds `metrics` to the process registry (once each): called by the component that owns them when it starts. */
export function exportMetrics(...metrics: Metric[]): void {
  for (const m of metrics) {
    const name = (m as unknown as { name: string }).name;
    if (metricsRegistry.getSingleMetric(name) !== m) metricsRegistry.registerMetric(m);
  }
}

/** A labelled counter exported by the first process that counts something with it (no samples before anyway). */
class CountedCounter<L extends string> extends Counter<L> {
  constructor(config: ConstructorParameters<typeof Counter<L>>[0]) {
    super(config);
    // prom-client assigns `inc` in its constructor: wrap that one.
    const inc = this.inc.bind(this) as (...args: unknown[]) => void;
    let exported = false;
    this.inc = ((...args: unknown[]) => {
      if (!exported) {
        exported = true;
        exportMetrics(this);
      }
      inc(...args);
    }) as Counter<L>['inc'];
  }
}

/** RED per route: method, route template (never the raw path) and status code. */
export const httpRequestDuration = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP requests served, by method, route template and status code.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [],
});

/** Answers replayed from a stored Idempotency-Key answer instead of running again. */
export const idempotencyReplays = new CountedCounter({
  name: 'idempotency_replays_total',
  help: 'Requests answered with the stored answer of their Idempotency-Key, by route template.',
  labelNames: ['route'] as const,
  registers: [],
});

/** Requests the gateway refused with 429. */
export const rateLimitRejections = new Counter({
  name: 'gateway_rate_limit_rejections_total',
  help: 'Requests the gateway refused with 429 Too Many Requests.',
  registers: [],
});

/** Outbox rows the relay published to JetStream (acknowledged and marked published). */
export const outboxPublished = new CountedCounter({
  name: 'outbox_relay_published_total',
  help: 'Outbox rows published to JetStream and marked published by this process.',
  labelNames: ['table'] as const,
  registers: [],
});

/** Messages a durable consumer stored and acknowledged. */
export const consumerProcessed = new CountedCounter({
  name: 'jetstream_consumer_processed_total',
  help: 'Messages a durable JetStream consumer of this process stored and acknowledged.',
  labelNames: ['consumer'] as const,
  registers: [],
});

/** Messages a durable consumer gave up on and published to its dead-letter subject. */
export const consumerDeadLettered = new CountedCounter({
  name: 'jetstream_consumer_dead_lettered_total',
  help: 'Messages a durable JetStream consumer of this process dead-lettered.',
  labelNames: ['consumer'] as const,
  registers: [],
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
  registers: [],
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
  exportMetrics(outboxBacklog, outboxPublished);
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
  registers: [],
  collect() {
    this.reset();
    for (const [connection, s] of natsSources) this.set({ connection }, s.connected ? 1 : 0);
  },
});

/** Reports the state of the NATS connection `name` at each scrape until the returned function is called. */
export function watchNatsConnection(name: string, source: ConnectionSource): () => void {
  exportMetrics(natsConnectionUp);
  natsSources.set(name, source);
  return () => {
    if (natsSources.get(name) === source) natsSources.delete(name);
  };
}

/** Messages a durable consumer received again (delivery count above 1: nak'ed, timed out or handed back). */
export const consumerRedelivered = new CountedCounter({
  name: 'jetstream_consumer_redelivered_total',
  help: 'Messages a durable JetStream consumer of this process received on a second or later delivery.',
  labelNames: ['consumer'] as const,
  registers: [],
});

/** Sign-in attempts the developer-service throttle refused with 429, by the limit that refused. */
export const loginThrottleRefusals = new CountedCounter({
  name: 'login_throttle_refusals_total',
  help: 'Sign-in attempts refused with 429 by the login throttle, by limit (ip, pair, user).',
  labelNames: ['limit'] as const,
  registers: [],
});

/** Bytes of record files received (uploads, resumable chunks) and sent (downloads). */
export const fileBytes = new CountedCounter({
  name: 'file_bytes_total',
  help: 'Bytes of record files received from clients (direction="in") and sent to them (direction="out").',
  labelNames: ['direction'] as const,
  registers: [],
});

/** Something that reads a value (or values by label) at scrape time. */
export type Reading<L extends string> = () =>
  | Promise<Array<{ labels: Partial<Record<L, string>>; value: number }>>
  | Array<{ labels: Partial<Record<L, string>>; value: number }>;

/**
 * A gauge read at scrape time from the sources registered with the returned `watch`
 * (each until the function it returns is called), exported by the process from its
 * first `watch` on. A source that fails (database or NATS outage) is left out of that
 * scrape instead of failing it. Apps declare their own scraped gauges with it.
 */
export function scrapedGauge<L extends string>(name: string, help: string, labelNames: readonly L[]) {
  const sources = new Set<Reading<L>>();
  const gauge = new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [],
    async collect() {
      this.reset();
      const readings = await Promise.all(
        [...sources].map(
          async (read) =>
            (await Promise.resolve()
              .then(read)
              .catch(() => [])) ?? [],
        ),
      );
      for (const r of readings.flat()) this.set(r.labels, r.value);
    },
  });
  const watch = (read: Reading<L>): (() => void) => {
    exportMetrics(gauge);
    sources.add(read);
    return () => sources.delete(read);
  };
  return { gauge, watch };
}

const dbPool = scrapedGauge(
  'db_pool_connections',
  'Connections of the PostgreSQL pool by state: total (open), idle, waiting (clients queued for one).',
  ['pool', 'state'] as const,
);

/** What a pg Pool tells of itself. */
export interface PgPoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** Reports the pool `pool()` returns (TypeORM's driver pool) at each scrape until the returned function is called. */
export function watchDbPool(name: string, pool: () => PgPoolCounts | undefined): () => void {
  return dbPool.watch(() => {
    const p = pool();
    if (!p) return [];
    return [
      { labels: { pool: name, state: 'total' }, value: p.totalCount },
      { labels: { pool: name, state: 'idle' }, value: p.idleCount },
      { labels: { pool: name, state: 'waiting' }, value: p.waitingCount },
    ];
  });
}

const outboxOldest = scrapedGauge(
  'outbox_oldest_unpublished_age_seconds',
  'Age in seconds of the oldest outbox row not yet published (0 when none; read at scrape time).',
  ['table'] as const,
);

/** Reports the age of `table`'s oldest unpublished row (seconds) at each scrape until the returned function is called. */
export function watchOutboxOldest(table: string, ageSeconds: () => Promise<number>): () => void {
  return outboxOldest.watch(async () => [{ labels: { table }, value: await ageSeconds() }]);
}

/** Pending counts of a durable consumer, as JetStream's consumer info tells them. */
export interface ConsumerPending {
  /** Messages of the stream not yet delivered to the consumer (num_pending). */
  pending: number;
  /** Messages delivered and not yet acknowledged (num_ack_pending). */
  ackPending: number;
}

const consumerPending = scrapedGauge(
  'jetstream_consumer_pending_messages',
  'Messages waiting for a durable JetStream consumer: state="undelivered" (num_pending) or "unacknowledged" (num_ack_pending); read at scrape time.',
  ['consumer', 'state'] as const,
);

/** Reports `consumer`'s pending counts (consumer info) at each scrape until the returned function is called. */
export function watchConsumerPending(consumer: string, info: () => Promise<ConsumerPending>): () => void {
  return consumerPending.watch(async () => {
    const i = await info();
    return [
      { labels: { consumer, state: 'undelivered' }, value: i.pending },
      { labels: { consumer, state: 'unacknowledged' }, value: i.ackPending },
    ];
  });
}

/** The registry in the Prometheus text format, with its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}
