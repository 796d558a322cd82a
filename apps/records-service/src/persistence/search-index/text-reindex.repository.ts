import { Injectable } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';
import { returned } from './page-tsv';

export interface ReindexProgress {
  total: number;
  done: number;
  failed: number;
}

/** The reindex's queries: each takes one bounded batch, keyed on ids, so a stopped run resumes where it was. */
@Injectable()
export class TextReindexRepository {
  constructor(private readonly tx: Transactions) {}

  /**
   * Queues the current bytes of up to `batch` files after `afterId` that have no text row
   * (files stored before content search); returns the last file id seen, null at the end.
   */
  async backfill(afterId: string, batch: number): Promise<string | null> {
    const rows: { last: string | null }[] = await this.tx.none.query(
      `WITH b AS (SELECT id, sha256, tenant_id FROM record_files WHERE id > $1 ORDER BY id LIMIT $2),
       ins AS (INSERT INTO file_texts (record_file_id, sha256, tenant_id) SELECT id, sha256, tenant_id FROM b
               ON CONFLICT (record_file_id, sha256) DO NOTHING)
       SELECT (SELECT id FROM b ORDER BY id DESC LIMIT 1)::text AS last`,
      [afterId, batch],
    );
    return rows[0]?.last ?? null;
  }

  /** Queues again up to `batch` texts read by an older extractor (their pages stay searchable until replaced). */
  async requeueOlder(version: number, batch: number): Promise<number> {
    const rows = returned(
      await this.tx.none.query(
        `UPDATE file_texts SET status = 'pending', attempts = 0, lease_until = NULL
       WHERE id IN (SELECT id FROM file_texts WHERE extractor_version < $1 AND status <> 'pending' ORDER BY id LIMIT $2)
       RETURNING 1`,
        [version, batch],
      ),
    );
    return rows.length;
  }

  /** Texts in all, read by extractor `version` (or later), and of those unsearchable. */
  async progress(version: number): Promise<ReindexProgress> {
    const [row] = await this.tx.none.query(
      `SELECT count(*)::int AS total,
         count(*) FILTER (WHERE extractor_version >= $1 AND status <> 'pending')::int AS done,
         count(*) FILTER (WHERE extractor_version >= $1 AND status = 'failed')::int AS failed
       FROM file_texts`,
      [version],
    );
    return row as ReindexProgress;
  }
}
