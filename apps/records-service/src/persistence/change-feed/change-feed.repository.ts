import { Injectable } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';
import { preparedQuery } from '../entity-rows';

/** One event of a vault's change feed as stored. */
export interface FeedRow {
  eventId: string;
  vaultId: string;
  recordId: string | null;
  type: string;
  envelope: object;
  occurredAt: string;
}

/** One event read back, with its position in the feed and the record it is about (if any). */
export interface FeedEntry {
  seq: string;
  type: string;
  envelope: object;
  recordId: string | null;
}

/** A caller of a vault's feed: its tenant and account. */
export interface FeedCaller {
  tenantId: string;
  openId: string;
}

/**
 * What a caller may see of a vault's feed now: with a vault role every event; without
 * one, `guestRecords` are the vault's live records on which it holds a role (empty: none).
 */
export interface FeedView extends FeedCaller {
  vaultRole: string | null;
  guestRecords: string[];
}

/**
 * The LISTEN/NOTIFY channel on which a feed write names the vaults it wrote: the payload
 * is `from:<instance>` (the process whose writer committed them), then the vault ids,
 * comma-separated (see feedNotification).
 */
export const FEED_CHANNEL = 'vault_feed';

/** Marks the first item of a FEED_CHANNEL payload: the writing instance, not a vault. */
const SENDER = 'from:';

/** The writing instance (absent in a payload without one) and the vaults of a FEED_CHANNEL payload. */
export function feedNotification(payload: string): { sender?: string; vaultIds: string[] } {
  const items = payload.split(',');
  const sender = items[0].startsWith(SENDER) ? items.shift()?.slice(SENDER.length) : undefined;
  return { sender, vaultIds: items.filter((id) => id !== '') };
}

/** Vault ids per notification (a NOTIFY payload is below 8,000 bytes; an id takes 37). */
const VAULTS_PER_NOTIFY = 150;

/** Serialises the feed's writers so that `seq` order is also commit order (no reader skips a row). */
const FEED_WRITE_LOCK = 1_763_800_001_200;

/**
 * Runs one statement and answers its rows (a connection of its own, instead of the pool); with
 * `name`, as that named prepared statement (parsed and planned once per connection).
 */
export type FeedQuery = (sql: string, params: unknown[], name?: string) => Promise<unknown[]>;

/** The vault change feeds (docs/change-feed.md): inserts in stream order, pages, pruning. */
@Injectable()
export class ChangeFeedRepository {
  constructor(private readonly tx: Transactions) {}

  /** One statement through the pool (outside a transaction). */
  readonly poolQuery: FeedQuery = (sql, params, name) =>
    name ? preparedQuery(this.tx.none, name, sql, params) : this.tx.none.query(sql, params);

  /**
   * Inserts the rows in their order in one statement; a row of an event already in the
   * feed of that vault inserts nothing. Writers take turns (the statement takes the feed's
   * write lock before its first row draws a `seq`, and holds it until it commits), so a
   * reader that saw a `seq` has seen every lower one. The same statement NOTIFYs
   * FEED_CHANNEL with `sender` (the writing instance) and the vaults it wrote (delivered to
   * every listening instance when it commits). One round trip: the statement is its own
   * transaction. Answers those vaults (none when every row was in the feed already).
   */
  async insertNew(rows: FeedRow[], sender: string): Promise<string[]> {
    if (rows.length === 0) return [];
    const col = <K extends keyof FeedRow>(k: K) => rows.map((r) => r[k]);
    // The lock CTE holds a volatile function, so it is evaluated once, before the join
    // yields the first row to the insert (where `seq` is drawn).
    const parts = await preparedQuery<{ ids: string }>(
      this.tx.none,
      'vault_feed_insert',
      `WITH turn AS (SELECT pg_advisory_xact_lock($9) AS locked),
       written AS (
         INSERT INTO vault_feed (event_id, vault_id, record_id, type, envelope, occurred_at)
         SELECT e, v, r, t, j, o
           FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::timestamptz[])
                WITH ORDINALITY AS x(e, v, r, t, j, o, n)
          CROSS JOIN turn
         ORDER BY n
         ON CONFLICT (event_id, vault_id) DO NOTHING
         RETURNING vault_id),
       vaults AS (SELECT vault_id, (row_number() OVER () - 1) / ${VAULTS_PER_NOTIFY} AS part FROM (SELECT DISTINCT vault_id FROM written) d),
       parts AS (SELECT string_agg(vault_id::text, ',') AS ids FROM vaults GROUP BY part)
       SELECT ids, pg_notify($7, $8 || ',' || ids) FROM parts`,
      [
        col('eventId'),
        col('vaultId'),
        col('recordId'),
        col('type'),
        rows.map((r) => JSON.stringify(r.envelope)),
        col('occurredAt'),
        FEED_CHANNEL,
        `${SENDER}${sender}`,
        FEED_WRITE_LOCK,
      ],
    );
    return parts.flatMap((p) => p.ids.split(','));
  }

  /**
   * Up to `limit` events of the vault after `afterSeq`, in order; with `guestOf`, only
   * events about live records of the vault on which that account holds a role.
   */
  async page(vaultId: string, afterSeq: string, limit: number, guestOf?: string): Promise<FeedEntry[]> {
    const guest = guestOf
      ? `AND f.record_id IN (SELECT g.record_id FROM record_memberships g
           JOIN records r ON r.id = g.record_id AND r.status <> 'DELETED' AND r.vault_id = $1
           WHERE g.open_id = $4)`
      : '';
    const rows: FeedEntry[] = await this.tx.none.query(
      `SELECT f.seq::text AS seq, f.type, f.envelope, f.record_id AS "recordId" FROM vault_feed f
       WHERE f.vault_id = $1 AND f.seq > $2 ${guest} ORDER BY f.seq LIMIT $3`,
      guestOf ? [vaultId, afterSeq, limit, guestOf] : [vaultId, afterSeq, limit],
    );
    return rows;
  }

  /**
   * For each read, in one statement (the same snapshot for all): up to `limit` events of
   * its vault after its `afterSeq` (as `page` without a guest) and what each of its callers
   * sees of that vault now: its vault role, or without one the live records of the vault on
   * which it holds a role (the visibility of vault routes). A caller of another tenant is
   * left out. The views are read only when the read has events or `always`. Answers one
   * result per read, in the order of `reads`. Through `via` when given (else the pool).
   */
  async eventsAndViewsOf(
    reads: { vaultId: string; afterSeq: string; callers: FeedCaller[]; always: boolean }[],
    limit: number,
    via?: FeedQuery,
  ): Promise<{ events: FeedEntry[]; views: FeedView[] }[]> {
    if (reads.length === 0) return [];
    const callers = reads.flatMap((r, k) => r.callers.map((c) => ({ k: k + 1, ...c })));
    const query = via ?? this.poolQuery;
    const rows = (await query(
      `WITH r AS (
         SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::boolean[]) WITH ORDINALITY AS r(vault_id, after_seq, always, k)),
       events AS (
         SELECT r.k, f.seq, f.type, f.envelope, f.record_id FROM r
           CROSS JOIN LATERAL (
             SELECT f.seq, f.type, f.envelope, f.record_id FROM vault_feed f
              WHERE f.vault_id = r.vault_id AND f.seq > r.after_seq ORDER BY f.seq LIMIT $7) f),
       views AS (
         SELECT c.k, c.tenant_id AS "tenantId", c.open_id AS "openId", vm.role AS "vaultRole",
           CASE WHEN vm.role IS NULL THEN ARRAY(
             SELECT DISTINCT g.record_id::text FROM record_memberships g
             JOIN records rec ON rec.id = g.record_id AND rec.status <> 'DELETED' AND rec.vault_id = v.id
             WHERE g.open_id = c.open_id AND g.tenant_id = v.tenant_id) ELSE '{}' END AS "guestRecords"
         FROM unnest($4::bigint[], $5::text[], $6::text[]) AS c(k, tenant_id, open_id)
         JOIN r ON r.k = c.k
         JOIN vaults v ON v.id = r.vault_id AND v.tenant_id = c.tenant_id
         LEFT JOIN vault_memberships vm ON vm.vault_id = v.id AND vm.open_id = c.open_id
         WHERE r.always OR EXISTS (SELECT 1 FROM events e WHERE e.k = c.k))
       SELECT
         (SELECT coalesce(json_agg(json_build_object('k', k, 'seq', seq::text, 'type', type, 'envelope', envelope,
                                                     'recordId', record_id) ORDER BY k, seq), '[]')
            FROM events) AS events,
         (SELECT coalesce(json_agg(views), '[]') FROM views) AS views`,
      [
        reads.map((r) => r.vaultId),
        reads.map((r) => r.afterSeq),
        reads.map((r) => r.always),
        callers.map((c) => c.k),
        callers.map((c) => c.tenantId),
        callers.map((c) => c.openId),
        limit,
      ],
      'vault_feed_events_and_views',
    )) as { events: (FeedEntry & { k: number })[]; views: (FeedView & { k: number })[] }[];
    const out = reads.map(() => ({ events: [] as FeedEntry[], views: [] as FeedView[] }));
    for (const { k, ...e } of rows[0].events) out[k - 1].events.push(e);
    for (const { k, ...v } of rows[0].views) out[k - 1].views.push(v);
    return out;
  }

  /** The highest pruned `seq` ('0' before any prune). */
  async prunedSeq(): Promise<string> {
    const rows: { pruned_seq: string }[] = await this.tx.none.query(
      `SELECT pruned_seq::text AS pruned_seq FROM vault_feed_horizon`,
    );
    return rows[0]?.pruned_seq ?? '0';
  }

  /**
   * Deletes the oldest events, up to the last one that occurred before `before`, and
   * raises the pruned horizon to it, in one statement (safe when several processes
   * prune at once). Returns the events deleted.
   */
  async prune(before: Date): Promise<number> {
    const rows: { deleted: string }[] = await this.tx.none.query(
      `WITH edge AS (SELECT max(seq) AS seq FROM vault_feed WHERE occurred_at < $1),
            gone AS (DELETE FROM vault_feed WHERE seq <= (SELECT seq FROM edge) RETURNING seq),
            raised AS (UPDATE vault_feed_horizon SET pruned_seq = GREATEST(pruned_seq, (SELECT seq FROM edge))
                       WHERE (SELECT seq FROM edge) IS NOT NULL)
       SELECT count(*)::text AS deleted FROM gone`,
      [before],
    );
    return Number(rows[0]?.deleted ?? 0);
  }
}
