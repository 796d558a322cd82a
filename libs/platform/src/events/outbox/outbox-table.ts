import type { EntityManager, QueryRunner } from 'typeorm';
import { currentTraceContext } from '../../observability/trace-context';

const IDENT = /^[a-z_][a-z0-9_]*$/;

function checked(table: string): string {
  if (!IDENT.test(table)) throw new Error('outbox table must be a plain lower-case identifier');
  return table;
}

/**
 * Creates a transactional outbox table as OutboxRelay reads it (`id` = event id,
 * `subject`, `payload`, `occurred_at`, `published_at`), its indexes of unpublished
 * and published rows, and a trigger that NOTIFYs the channel named like the table
 * on every insert (delivered at commit; it wakes the relay).
 */
export async function createOutboxTable(q: QueryRunner, table: string): Promise<void> {
  const t = checked(table);
  await q.query(`
    CREATE TABLE ${t} (
      id uuid PRIMARY KEY,
      subject text NOT NULL,
      payload jsonb NOT NULL,
      occurred_at timestamptz NOT NULL,
      published_at timestamptz
    )`);
  await q.query(`CREATE INDEX ${t}_unpublished_idx ON ${t} (occurred_at, id) WHERE published_at IS NULL`);
  await q.query(`CREATE INDEX ${t}_published_idx ON ${t} (published_at) WHERE published_at IS NOT NULL`);
  await q.query(`
    CREATE FUNCTION ${t}_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('${t}', '');
      RETURN NULL;
    END $$`);
  await q.query(`
    CREATE TRIGGER ${t}_notify AFTER INSERT ON ${t}
    FOR EACH STATEMENT EXECUTE FUNCTION ${t}_notify()`);
}

/**
 * Adds the nullable `trace_context` column: the W3C trace context of the change that
 * wrote the row (JSON of `traceparent`/`tracestate`), null while tracing is off. The
 * relay sends it on as NATS headers.
 */
export async function addOutboxTraceContext(q: QueryRunner, table: string): Promise<void> {
  await q.query(`ALTER TABLE ${checked(table)} ADD COLUMN IF NOT EXISTS trace_context text`);
}

/** Drops what addOutboxTraceContext added. */
export async function dropOutboxTraceContext(q: QueryRunner, table: string): Promise<void> {
  await q.query(`ALTER TABLE ${checked(table)} DROP COLUMN IF EXISTS trace_context`);
}

/** Drops what createOutboxTable made. */
export async function dropOutboxTable(q: QueryRunner, table: string): Promise<void> {
  const t = checked(table);
  await q.query(`DROP TABLE IF EXISTS ${t}`);
  await q.query(`DROP FUNCTION IF EXISTS ${t}_notify()`);
}

/** One event as an outbox row stores it. */
export interface OutboxEvent {
  /** Event id: the `Nats-Msg-Id` on delivery. */
  id: string;
  /** Subject without the events namespace (a SUBJECTS constant). */
  subject: string;
  payload: object;
  occurredAt: Date;
}

/**
 * Writes events into an outbox table made by createOutboxTable, through `manager`:
 * inside the transaction of the change, they commit or roll back with it.
 */
export async function insertOutboxEvents(manager: EntityManager, table: string, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const t = checked(table);
  // Written only when tracing is on (the table then has the column: addOutboxTraceContext).
  const trace = currentTraceContext();
  const params: unknown[] = [];
  const rows = events.map((e) => {
    params.push(e.id, e.subject, JSON.stringify(e.payload), e.occurredAt);
    const n = params.length;
    if (trace === null) return `($${n - 3}, $${n - 2}, $${n - 1}::jsonb, $${n})`;
    params.push(trace);
    return `($${n - 3}, $${n - 2}, $${n - 1}::jsonb, $${n}, $${n + 1})`;
  });
  const columns = trace === null ? 'id, subject, payload, occurred_at' : 'id, subject, payload, occurred_at, trace_context';
  await manager.query(`INSERT INTO ${t} (${columns}) VALUES ${rows.join(', ')}`, params);
}
