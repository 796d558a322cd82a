import { Injectable } from '@nestjs/common';
import type { SelectQueryBuilder } from 'typeorm';
import { ActivityLogEntryEntity } from './activity-log-entry.entity';
import { Transactions } from '@vault/platform/persistence';

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

/** Entries in page order with their keys. */
export interface LogSlice {
  entries: ActivityLogEntryEntity[];
  keys: LogKey[];
}

/** A timestamp from microseconds since the epoch, exactly (no floating point). */
const US_TO_TS = (param: string) => `(timestamptz 'epoch' + (${param})::bigint * interval '1 microsecond')`;

/** The activity log: batch inserts of the writer, pages for the endpoint. */
@Injectable()
export class ActivityLogRepository {
  constructor(private readonly tx: Transactions) {}

  /** Entries matching the filter: from the counters, or (sender filter) counted on its index. */
  async count(vault: LogVault, f: ActivityLogFilter): Promise<number> {
    if (f.actorOpenId) return this.filtered(vault, f).getCount();
    const qb = this.tx.none
      .createQueryBuilder()
      .select('COALESCE(SUM(c.total), 0)', 'total')
      .from('activity_log_counts', 'c')
      .where('c.vault_id = :vaultId', { vaultId: vault.id });
    if (f.entity) qb.andWhere('c.entity = :entity', { entity: f.entity });
    if (f.eventType) qb.andWhere('c.event_type = :eventType', { eventType: f.eventType });
    const raw = await qb.getRawOne<{ total: string }>();
    return Number(raw?.total ?? 0);
  }

  /**
   * `limit` entries from position `offset` (0 = newest) of the filtered log, newest
   * first. Positions in the older half are read backwards from the oldest entry, so
   * the first and the last pages both cost a short index scan whatever the log's size.
   */
  async slice(vault: LogVault, f: ActivityLogFilter, offset: number, limit: number, total: number): Promise<LogSlice> {
    if (offset >= total) return { entries: [], keys: [] };
    const fromEnd = total - offset - limit;
    if (offset <= total / 2) return this.read(this.filtered(vault, f), 'DESC', offset, limit);
    const rows = await this.read(this.filtered(vault, f), 'ASC', Math.max(0, fromEnd), limit + Math.min(0, fromEnd));
    return { entries: rows.entries.reverse(), keys: rows.keys.reverse() };
  }

  /** Up to `limit` entries after `key` in page order (keyset: no offset to skip). */
  after(vault: LogVault, f: ActivityLogFilter, key: LogKey, limit: number): Promise<LogSlice> {
    const qb = this.filtered(vault, f).andWhere(
      `(e.occurred_at, e.logged_at, e.event_id) < (${US_TO_TS(':o')}, ${US_TO_TS(':l')}, :e)`,
      { o: key.occurredUs, l: key.loggedUs, e: key.eventId },
    );
    return this.read(qb, 'DESC', 0, limit);
  }

  private filtered(vault: LogVault, f: ActivityLogFilter) {
    const qb = this.tx.none
      .getRepository(ActivityLogEntryEntity)
      .createQueryBuilder('e')
      .where('e.vault_id = :vaultId AND e.tenant_id = :tenantId', { vaultId: vault.id, tenantId: vault.tenantId });
    if (f.entity) qb.andWhere('e.entity = :entity', { entity: f.entity });
    if (f.eventType) qb.andWhere('e.event_type = :eventType', { eventType: f.eventType });
    if (f.actorOpenId) qb.andWhere('e.actor_open_id = :actor', { actor: f.actorOpenId });
    return qb;
  }

  private async read(
    qb: SelectQueryBuilder<ActivityLogEntryEntity>,
    order: 'ASC' | 'DESC',
    offset: number,
    limit: number,
  ): Promise<LogSlice> {
    if (limit <= 0) return { entries: [], keys: [] };
    const { entities, raw } = await qb
      .addSelect('(extract(epoch from e.occurred_at) * 1000000)::bigint', 'o_us')
      .addSelect('(extract(epoch from e.logged_at) * 1000000)::bigint', 'l_us')
      .orderBy('e.occurred_at', order)
      .addOrderBy('e.logged_at', order)
      .addOrderBy('e.event_id', order)
      .offset(offset)
      .limit(limit)
      .getRawAndEntities<{ o_us: string; l_us: string; e_event_id: string }>();
    return {
      entries: entities,
      keys: raw.map((r) => ({ occurredUs: r.o_us, loggedUs: r.l_us, eventId: r.e_event_id })),
    };
  }

  /**
   * Inserts rows in one statement (one transaction): the columns are unnested, and
   * event/vault pairs already logged are skipped, so a redelivered event inserts nothing;
   * the same statement adds what it inserted to the per-vault counts.
   */
  async insertNew(rows: ActivityLogRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof ActivityLogRow>(k: K) => rows.map((r) => r[k]);
    await this.tx.none.query(
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
