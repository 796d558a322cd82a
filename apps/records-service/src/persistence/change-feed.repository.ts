import { Injectable } from '@nestjs/common';
import { Transactions } from './transactions';

/** One event of a vault's change feed as stored. */
export interface FeedRow {
  eventId: string;
  vaultId: string;
  recordId: string | null;
  type: string;
  envelope: object;
  occurredAt: string;
}

/** One event read back, with its position in the feed. */
export interface FeedEntry {
  seq: string;
  type: string;
  envelope: object;
}

/** Serialises the feed's writers so that `seq` order is also commit order (no reader skips a row). */
const FEED_WRITE_LOCK = 1_763_800_001_200;

/** The vault change feeds (docs/change-feed.md): inserts in stream order, pages, pruning. */
@Injectable()
export class ChangeFeedRepository {
  constructor(private readonly tx: Transactions) {}

  /**
   * Inserts the rows in their order in one statement; a row of an event already in the
   * feed of that vault inserts nothing. Writers take turns, so a reader that saw a `seq`
   * has seen every lower one.
   */
  async insertNew(rows: FeedRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof FeedRow>(k: K) => rows.map((r) => r[k]);
    await this.tx.run(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock($1)`, [FEED_WRITE_LOCK]);
      await tx.query(
        `INSERT INTO vault_feed (event_id, vault_id, record_id, type, envelope, occurred_at)
         SELECT e, v, r, t, j, o FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[], $6::timestamptz[])
           WITH ORDINALITY AS x(e, v, r, t, j, o, n)
         ORDER BY n
         ON CONFLICT (event_id, vault_id) DO NOTHING`,
        [col('eventId'), col('vaultId'), col('recordId'), col('type'), rows.map((r) => JSON.stringify(r.envelope)), col('occurredAt')],
      );
    });
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
    const rows: { seq: string; type: string; envelope: object }[] = await this.tx.none.query(
      `SELECT f.seq::text AS seq, f.type, f.envelope FROM vault_feed f
       WHERE f.vault_id = $1 AND f.seq > $2 ${guest} ORDER BY f.seq LIMIT $3`,
      guestOf ? [vaultId, afterSeq, limit, guestOf] : [vaultId, afterSeq, limit],
    );
    return rows;
  }

  /** The highest pruned `seq` ('0' before any prune). */
  async prunedSeq(): Promise<string> {
    const rows: { pruned_seq: string }[] = await this.tx.none.query(`SELECT pruned_seq::text AS pruned_seq FROM vault_feed_horizon`);
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
