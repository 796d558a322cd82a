import type { JetStreamClient } from '@nats-io/jetstream';
import { headers } from '@nats-io/nats-core';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { outboxPublished, watchOutboxBacklog, watchOutboxOldest } from '../../observability/metrics';
import { publishInTrace } from '../../observability/trace-context';
import type { RelayLogger } from '../jetstream/durable-consumer';
import { EventNamespace } from '../jetstream/namespace';

/**
 * The planner settings of the relay's reads of the unpublished rows, its claim and its backlog
 * gauges (SET LOCAL: their transaction only). A published row leaves a dead entry in the
 * table's index of unpublished rows until it is vacuumed, and a bitmap scan of that index (which
 * the planner picks for the few rows it expects) visits the heap page of every such entry at
 * every read: with autovacuum behind (or off), hundreds of pages for a handful of rows. A plain
 * index scan marks the dead entries it meets as such, and later reads skip them without reading
 * the heap.
 */
export const UNPUBLISHED_SCAN_SETTINGS = 'SET LOCAL enable_bitmapscan = off';

/**
 * The relay's transaction commits without waiting for its WAL to reach the disk. What it writes
 * is only the mark of rows already published: if the database server fails before the mark is
 * on disk, the rows are published again, JetStream drops the copies it still remembers
 * (Nats-Msg-Id within the stream's duplicate window) and the consumers absorb the others (by
 * event id, the account directory by version). The relay's next batch no longer waits for a disk
 * flush.
 */
export const RELAY_COMMIT_SETTINGS = 'SET LOCAL synchronous_commit = off';

/**
 * The relay's claim of the oldest unpublished rows, at most `batchSize` (under
 * UNPUBLISHED_SCAN_SETTINGS). `trace_context` through to_jsonb: an outbox table without the
 * column reads null.
 */
export function claimQuery(table: string, batchSize: number): string {
  return `SELECT id, subject, payload, to_jsonb(${table}) ->> 'trace_context' AS trace_context FROM ${table}
     WHERE published_at IS NULL
     ORDER BY occurred_at, id
     LIMIT ${Math.max(1, Math.trunc(batchSize))}
     FOR UPDATE SKIP LOCKED`;
}

/** The backlog gauges' reads of the unpublished rows (under UNPUBLISHED_SCAN_SETTINGS): their count, and the oldest one's age in seconds. */
export function backlogQueries(table: string): { rows: string; oldestAgeSeconds: string } {
  return {
    rows: `SELECT count(*)::int AS n FROM ${table} WHERE published_at IS NULL`,
    oldestAgeSeconds: `SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(occurred_at)), 0)::float8 AS n FROM ${table} WHERE published_at IS NULL`,
  };
}

export interface OutboxRelayOptions {
  dataSource: DataSource;
  js: JetStreamClient;
  namespace: EventNamespace;
  /**
   * Outbox table with columns `id uuid` (event id), `subject text`, `payload jsonb`,
   * `occurred_at timestamptz` and `published_at timestamptz null`.
   */
  table: string;
  /** Channel a trigger on the table NOTIFYs on insert (the relay LISTENs to it). */
  channel: string;
  /** Connection string of the dedicated LISTEN connection (same database). */
  listenUrl: string;
  /** Rows published per transaction. */
  batchSize: number;
  /** Fallback poll interval when no notification arrives. */
  pollIntervalMs: number;
  /** Time to wait for JetStream's publish acknowledgement. */
  publishTimeoutMs: number;
  logger: RelayLogger;
  /**
   * Published rows older than this are deleted (in chunks, at most every
   * `pruneIntervalMs`); undefined keeps them forever.
   */
  retentionMs?: number;
  pruneIntervalMs?: number;
  /**
   * Called after JetStream acknowledged a batch and before the rows are marked
   * published (instrumentation; a throw here leaves the rows unpublished, as a
   * crash at that point would).
   */
  onPublished?: (ids: string[]) => Promise<void> | void;
}

interface OutboxRow {
  id: string;
  subject: string;
  payload: unknown;
  /** W3C trace context of the change (JSON), null when written with tracing off or without the column. */
  trace_context: string | null;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The pg client under a query runner: a query without parameters may hold several statements. */
interface SimpleQueryClient {
  query(text: string): Promise<{ rows: unknown[] }[] & { rows: unknown[] }>;
}

/** `ids` as a uuid[] literal (each checked, so nothing but uuids reaches the statement). */
function uuidArray(ids: string[]): string {
  for (const id of ids) if (!UUID.test(id)) throw new Error(`outbox row id is not a uuid: ${id}`);
  return `'{${ids.join(',')}}'::uuid[]`;
}

/**
 * Transactional outbox relay: claims unpublished rows with
 * `FOR UPDATE SKIP LOCKED` (several relays share the work without taking the
 * same rows), publishes them to JetStream with `Nats-Msg-Id` = event id, and
 * marks them published in the same transaction once JetStream acknowledged
 * them. A crash between publish and mark leaves the rows unpublished; they are
 * published again and JetStream drops the duplicates inside its duplicate
 * window (consumers dedupe by event id beyond it). Woken by LISTEN/NOTIFY,
 * with a poll as fallback.
 */
export class OutboxRelay {
  private running = false;
  private loop?: Promise<void>;
  private listener?: Client;
  private wake?: () => void;
  private pending = true;
  private listenRetry?: NodeJS.Timeout;
  private lastPrune = 0;
  private unwatchBacklog?: () => void;
  private unwatchOldest?: () => void;
  /** Rows published since start (for tests and benchmarks). */
  published = 0;

  constructor(private readonly opts: OutboxRelayOptions) {
    if (!IDENT.test(opts.table) || !IDENT.test(opts.channel)) {
      throw new Error('outbox table and channel must be plain lower-case identifiers');
    }
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unwatchBacklog = watchOutboxBacklog({ table: this.opts.table, backlog: () => this.backlog() });
    this.unwatchOldest = watchOutboxOldest(this.opts.table, () => this.oldestAgeSeconds());
    await this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unwatchBacklog?.();
    this.unwatchOldest?.();
    clearTimeout(this.listenRetry);
    this.wake?.();
    await this.loop;
    const l = this.listener;
    this.listener = undefined;
    await l?.end().catch(() => undefined);
  }

  /**
   * Publishes one batch; returns the number of rows published. Two round trips to
   * PostgreSQL per batch: BEGIN and the claim (claimQuery) go as one simple query, the
   * mark and COMMIT as another (the ids inline: uuids read from the table), the publish
   * between them.
   */
  async relayOnce(): Promise<number> {
    const { dataSource, js, namespace, table, batchSize, publishTimeoutMs } = this.opts;
    const qr = dataSource.createQueryRunner();
    const client = (await qr.connect()) as SimpleQueryClient;
    let open = false;
    try {
      open = true;
      const [, , , claimed] = await client.query(
        `BEGIN; ${UNPUBLISHED_SCAN_SETTINGS}; ${RELAY_COMMIT_SETTINGS}; ${claimQuery(table, batchSize)}`,
      );
      const rows = claimed.rows as OutboxRow[];
      if (rows.length === 0) {
        await client.query('COMMIT');
        open = false;
        return 0;
      }
      await Promise.all(
        rows.map((r) => {
          const h = headers();
          return publishInTrace(r.trace_context, r.subject, r.id, h, () =>
            js.publish(namespace.subject(r.subject), JSON.stringify(r.payload), {
              msgID: r.id,
              timeout: publishTimeoutMs,
              headers: h,
            }),
          );
        }),
      );
      const ids = rows.map((r) => r.id);
      await this.opts.onPublished?.(ids);
      await client.query(`UPDATE ${table} SET published_at = now() WHERE id = ANY(${uuidArray(ids)}); COMMIT`);
      open = false;
      this.published += rows.length;
      outboxPublished.inc({ table }, rows.length);
      return rows.length;
    } catch (err) {
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await qr.release();
    }
  }

  /** Rows not yet published (the outbox_backlog_rows metric, read at scrape time). */
  async backlog(): Promise<number> {
    return this.readBacklog(backlogQueries(this.opts.table).rows);
  }

  /** Seconds since the oldest unpublished row occurred, 0 when none (outbox_oldest_unpublished_age_seconds). */
  async oldestAgeSeconds(): Promise<number> {
    return Math.max(0, await this.readBacklog(backlogQueries(this.opts.table).oldestAgeSeconds));
  }

  /** One backlog gauge's read (`n`), in a read-only transaction under UNPUBLISHED_SCAN_SETTINGS: one simple query. */
  private async readBacklog(select: string): Promise<number> {
    const qr = this.opts.dataSource.createQueryRunner();
    const client = (await qr.connect()) as SimpleQueryClient;
    try {
      const [, , read] = await client.query(`BEGIN READ ONLY; ${UNPUBLISHED_SCAN_SETTINGS}; ${select}; COMMIT`);
      return Number((read.rows[0] as { n?: unknown } | undefined)?.n ?? 0);
    } catch (err) {
      // a failed statement leaves the transaction open: closed before the connection goes back
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      await qr.release();
    }
  }

  /** Deletes published rows older than the retention; returns how many. */
  async prune(): Promise<number> {
    const { retentionMs, table, dataSource } = this.opts;
    if (retentionMs === undefined) return 0;
    let total = 0;
    for (;;) {
      const [, deleted] = await dataSource.query(
        `DELETE FROM ${table} WHERE id IN (
           SELECT id FROM ${table}
            WHERE published_at IS NOT NULL AND published_at < now() - make_interval(secs => $1)
            LIMIT 5000)`,
        [retentionMs / 1000],
      );
      total += Number(deleted ?? 0);
      if (!deleted || deleted < 5000) return total;
    }
  }

  private async pruneIfDue(): Promise<void> {
    if (this.opts.retentionMs === undefined) return;
    if (Date.now() - this.lastPrune < (this.opts.pruneIntervalMs ?? 60_000)) return;
    this.lastPrune = Date.now();
    await this.prune().catch((err) => this.opts.logger.warn(`outbox relay: pruning failed: ${err}`));
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.pending = false;
      let n = 0;
      try {
        n = await this.relayOnce();
        failures = 0;
        await this.pruneIfDue();
      } catch (err) {
        failures++;
        if (failures === 1 || failures % 20 === 0) {
          this.opts.logger.warn(`outbox relay: publish failed (${failures}x), retrying: ${err}`);
        }
        await this.sleep(Math.min(5000, 100 * 2 ** Math.min(failures, 6)));
        continue;
      }
      if (n === this.opts.batchSize || this.pending) continue;
      await this.sleep(this.opts.pollIntervalMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private notified(): void {
    this.pending = true;
    this.wake?.();
  }

  private async listen(): Promise<void> {
    if (!this.running) return;
    const client = new Client({ connectionString: this.opts.listenUrl });
    const retry = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      if (this.running) this.listenRetry = setTimeout(() => void this.listen(), 1000);
    };
    client.on('notification', () => this.notified());
    client.on('error', (err) => {
      this.opts.logger.warn(`outbox relay: LISTEN connection lost, polling until it is back: ${err}`);
      retry();
    });
    client.on('end', retry);
    this.listener = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${this.opts.channel}`);
      this.notified();
    } catch (err) {
      this.opts.logger.warn(`outbox relay: LISTEN failed, polling: ${err}`);
      retry();
    }
  }
}
