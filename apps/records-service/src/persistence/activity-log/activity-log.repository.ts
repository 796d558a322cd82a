import { Injectable } from '@nestjs/common';
import { ActivityLogEntryEntity } from './activity-log-entry.entity';
import { Transactions } from '@vault/platform/persistence';
import { preparedQuery } from '../entity-rows';

/** Columns of one log row, locale-neutral. */
export interface ActivityLogRow {
  eventId: string;
  vaultId: string;
  tenantId: string;
  subject: string;
  entity: string;
  eventType: string;
  action: string;
  actorOpenId: string;
  actorName: string;
  vaultName: string;
  recordId: string | null;
  recordName: string | null;
  fileName: string | null;
  details: Record<string, unknown>;
  occurredAt: Date;
}

/** Filters of an activity-log page; every given filter must hold. */
export interface ActivityLogFilter {
  entity?: string;
  eventType?: string;
  actorOpenId?: string;
}

/** Where an entry stands in page order: its times in microseconds since the epoch, and its id. */
export interface LogKey {
  occurredUs: string;
  loggedUs: string;
  eventId: string;
}

/** The vault whose log is read. */
type LogVault = { id: string; tenantId: string };

/**
 * What a page shows of an entry: the columns the rendering reads (the same as the
 * reference's page read), not the writer's bookkeeping (subject, event type, actor id,
 * logged_at, tenant).
 */
export type ActivityLogView = Pick<
  ActivityLogEntryEntity,
  | 'eventId'
  | 'vaultId'
  | 'entity'
  | 'action'
  | 'actorName'
  | 'vaultName'
  | 'recordId'
  | 'recordName'
  | 'fileName'
  | 'details'
  | 'occurredAt'
>;

/** Entries in page order with their keys. */
export interface LogSlice {
  entries: ActivityLogView[];
  keys: LogKey[];
}

/** A timestamp from microseconds since the epoch, exactly (no floating point). */
const US_TO_TS = (param: string) => `(timestamptz 'epoch' + (${param})::bigint * interval '1 microsecond')`;

/**
 * The select list of a page: the view's columns under their property names (the pg
 * driver answers them as TypeORM hydrated them: jsonb parsed, timestamptz as Date), and
 * each entry's key in microseconds for the cursor.
 */
const VIEW_SELECT = `event_id AS "eventId", vault_id AS "vaultId", entity, action, actor_name AS "actorName",
  vault_name AS "vaultName", record_id AS "recordId", record_name AS "recordName", file_name AS "fileName", details,
  occurred_at AS "occurredAt", (extract(epoch from occurred_at) * 1000000)::bigint AS o_us,
  (extract(epoch from logged_at) * 1000000)::bigint AS l_us`;

const pageOrder = (order: 'ASC' | 'DESC') => `ORDER BY occurred_at ${order}, logged_at ${order}, event_id ${order}`;

/**
 * The conditions of a filtered log read and their parameters, from $1, with the filter's
 * shape (which filters are given) for the statement's name: one named statement per shape.
 */
function logWhere(vault: LogVault, f: ActivityLogFilter, counts = false): { where: string; params: unknown[]; shape: string } {
  const params: unknown[] = [vault.id];
  const where = ['vault_id = $1'];
  let shape = '';
  if (!counts) {
    where.push(`tenant_id = $${params.push(vault.tenantId)}`);
  }
  if (f.entity) {
    where.push(`entity = $${params.push(f.entity)}`);
    shape += 'e';
  }
  if (f.eventType) {
    where.push(`event_type = $${params.push(f.eventType)}`);
    shape += 't';
  }
  if (f.actorOpenId && !counts) {
    where.push(`actor_open_id = $${params.push(f.actorOpenId)}`);
    shape += 'a';
  }
  return { where: where.join(' AND '), params, shape: shape || 'all' };
}

type PageRow = ActivityLogView & { o_us: string; l_us: string };

/**
 * The activity log: batch inserts of the writer, pages for the endpoint. A page's reads
 * are plain SQL as named prepared statements (preparedQuery): parsed and planned once per
 * connection, not per request.
 */
@Injectable()
export class ActivityLogRepository {
  constructor(private readonly tx: Transactions) {}

  /** Entries matching the filter: from the counters, or (sender filter) counted on its index. */
  async count(vault: LogVault, f: ActivityLogFilter): Promise<number> {
    const byRows = !!f.actorOpenId;
    const { where, params, shape } = logWhere(vault, f, !byRows);
    const rows = byRows
      ? await this.read<{ total: string }>(
          `log_count_rows_${shape}`,
          `SELECT count(*) AS total FROM activity_log_entries WHERE ${where}`,
          params,
        )
      : await this.read<{ total: string }>(
          `log_count_${shape}`,
          `SELECT COALESCE(SUM(total), 0) AS total FROM activity_log_counts WHERE ${where}`,
          params,
        );
    return Number(rows[0]?.total ?? 0);
  }

  /**
   * `limit` entries from position `offset` (0 = newest) of the filtered log, newest
   * first. Positions in the older half are read backwards from the oldest entry, so
   * the first and the last pages both cost a short index scan whatever the log's size.
   */
  async slice(vault: LogVault, f: ActivityLogFilter, offset: number, limit: number, total: number): Promise<LogSlice> {
    if (offset >= total) return { entries: [], keys: [] };
    const fromEnd = total - offset - limit;
    if (offset <= total / 2) return this.page(vault, f, 'DESC', offset, limit);
    const rows = await this.page(vault, f, 'ASC', Math.max(0, fromEnd), limit + Math.min(0, fromEnd));
    return { entries: rows.entries.reverse(), keys: rows.keys.reverse() };
  }

  /** Up to `limit` entries after `key` in page order (keyset: no offset to skip). */
  async after(vault: LogVault, f: ActivityLogFilter, key: LogKey, limit: number): Promise<LogSlice> {
    if (limit <= 0) return { entries: [], keys: [] };
    const { where, params, shape } = logWhere(vault, f);
    const n = params.length;
    const rows = await this.read<PageRow>(
      `log_after_${shape}`,
      `SELECT ${VIEW_SELECT} FROM activity_log_entries
       WHERE ${where} AND (occurred_at, logged_at, event_id) < (${US_TO_TS(`$${n + 1}`)}, ${US_TO_TS(`$${n + 2}`)}, $${n + 3})
       ${pageOrder('DESC')} LIMIT $${n + 4}`,
      [...params, key.occurredUs, key.loggedUs, key.eventId, limit],
    );
    return slice(rows);
  }

  private async page(
    vault: LogVault,
    f: ActivityLogFilter,
    order: 'ASC' | 'DESC',
    offset: number,
    limit: number,
  ): Promise<LogSlice> {
    if (limit <= 0) return { entries: [], keys: [] };
    const { where, params, shape } = logWhere(vault, f);
    const n = params.length;
    const rows = await this.read<PageRow>(
      `log_page_${order.toLowerCase()}_${shape}`,
      `SELECT ${VIEW_SELECT} FROM activity_log_entries WHERE ${where} ${pageOrder(order)} OFFSET $${n + 1} LIMIT $${n + 2}`,
      [...params, offset, limit],
    );
    return slice(rows);
  }

  private read<T extends object>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return preparedQuery<T>(this.tx.none, name, text, values);
  }

  /**
   * Inserts rows in one statement (one transaction): the columns are unnested, and
   * event/vault pairs already logged are skipped, so a redelivered event inserts nothing;
   * the same statement adds what it inserted to the per-vault counts.
   */
  async insertNew(rows: ActivityLogRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof ActivityLogRow>(k: K) => rows.map((r) => r[k]);
    await preparedQuery(
      this.tx.none,
      'activity_log_insert',
      `WITH inserted AS (
         INSERT INTO activity_log_entries (event_id, vault_id, tenant_id, subject, entity, event_type, action,
           actor_open_id, actor_name, vault_name, record_id, record_name, file_name, details, occurred_at)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
           $8::text[], $9::text[], $10::text[], $11::uuid[], $12::text[], $13::text[], $14::jsonb[], $15::timestamptz[])
         ON CONFLICT (event_id, vault_id) DO NOTHING
         RETURNING vault_id, entity, event_type)
       INSERT INTO activity_log_counts (vault_id, entity, event_type, total)
       SELECT vault_id, entity, event_type, count(*) FROM inserted GROUP BY 1, 2, 3
       ON CONFLICT (vault_id, entity, event_type) DO UPDATE SET total = activity_log_counts.total + EXCLUDED.total`,
      [
        col('eventId'),
        col('vaultId'),
        col('tenantId'),
        col('subject'),
        col('entity'),
        col('eventType'),
        col('action'),
        col('actorOpenId'),
        col('actorName'),
        col('vaultName'),
        col('recordId'),
        col('recordName'),
        col('fileName'),
        rows.map((r) => JSON.stringify(r.details)),
        rows.map((r) => r.occurredAt.toISOString()),
      ],
    );
  }
}

/** Rows of a page read as entries and their keys. */
function slice(rows: PageRow[]): LogSlice {
  return {
    entries: rows,
    keys: rows.map((r) => ({ occurredUs: r.o_us, loggedUs: r.l_us, eventId: r.eventId })),
  };
}
