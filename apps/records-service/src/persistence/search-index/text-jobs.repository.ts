import { Injectable } from '@nestjs/common';
import { Transactions, type Tx } from '@vault/platform/persistence';
import { pageTsvSql, VAULT_LANGUAGE_SQL } from './page-tsv';
import { LIVE_SQL, VERSION_ID_SQL } from './live-state';
import { preparedQuery } from '../entity-rows';

/** A claimed extraction: one file version with what its event and its index rows need. */
export interface TextJob {
  id: string;
  attempts: number;
  tenantId: string;
  vaultId: string;
  vaultName: string;
  recordId: string;
  recordName: string;
  recordTypeName: string;
  fileName: string;
  correlationId: string;
  fileType: string;
  size: number;
  storageKey: string;
  versionId: string | null;
  uploader: string;
  uploaderOpenId: string;
  /** False when the version is no longer the file's current bytes. */
  current: boolean;
  indexing: boolean;
  /** The vault's text search configuration (simple, english, german ...). */
  language: string;
}

/** What extraction made of a job. */
export interface TextOutcome {
  status: 'extracted' | 'failed' | 'skipped';
  reason: string | null;
  detectedType: string | null;
  extractorVersion: number;
  pages: { page: number; text: string; ocr: boolean }[];
}

const JOIN_FILE = `JOIN record_files rf ON rf.id = ft.record_file_id
  JOIN records r ON r.id = rf.record_id
  JOIN vaults v ON v.id = r.vault_id
  LEFT JOIN search_settings ss ON ss.vault_id = v.id`;

/** The extraction queue: file_texts rows in status pending, claimed with a lease. */
@Injectable()
export class TextJobRepository {
  constructor(private readonly tx: Transactions) {}

  /**
   * Queues the current bytes of the record's file `fileName` (a new file or version); a
   * version skipped before (replaced, indexing off) is queued again. Returns whether a job is due.
   */
  async enqueue(recordId: string, fileName: string): Promise<boolean> {
    const rows: unknown[] = await this.tx.none.query(
      `INSERT INTO file_texts (record_file_id, sha256, tenant_id)
       SELECT rf.id, rf.sha256, rf.tenant_id FROM record_files rf
       JOIN records r ON r.id = rf.record_id JOIN vaults v ON v.id = r.vault_id
       WHERE rf.record_id = $1 AND rf.file_name = $2 AND ${LIVE_SQL}
       ON CONFLICT (record_file_id, sha256) DO UPDATE SET status = 'pending', attempts = 0, lease_until = NULL
         WHERE file_texts.status = 'skipped'
       RETURNING id`,
      [recordId, fileName],
    );
    return rows.length > 0;
  }

  /** Queues the current bytes of every file of the vault (indexing turned on). */
  async enqueueVault(vaultId: string): Promise<void> {
    await this.tx.none.query(
      `INSERT INTO file_texts (record_file_id, sha256, tenant_id)
       SELECT rf.id, rf.sha256, rf.tenant_id FROM record_files rf JOIN records r ON r.id = rf.record_id
       WHERE r.vault_id = $1
       ON CONFLICT (record_file_id, sha256) DO UPDATE SET status = 'pending', attempts = 0, lease_until = NULL
         WHERE file_texts.status = 'skipped'`,
      [vaultId],
    );
  }

  /**
   * Claims up to `limit` due jobs for `leaseSeconds` (a crashed worker's jobs come back
   * when the lease ends; each claim counts an attempt, so a file that kills its worker is
   * given up after a few).
   */
  async claim(limit: number, leaseSeconds: number): Promise<TextJob[]> {
    return preparedQuery<TextJob>(
      this.tx.none,
      'text_jobs_claim',
      `WITH due AS (
         SELECT id FROM file_texts WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < now())
         ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED),
       ft AS (
         UPDATE file_texts ft SET attempts = ft.attempts + 1, lease_until = now() + make_interval(secs => $2)
         FROM due WHERE ft.id = due.id RETURNING ft.*)
       SELECT ft.id, ft.attempts, ft.tenant_id AS "tenantId", v.id AS "vaultId", v.name AS "vaultName",
         r.id AS "recordId", r.name AS "recordName", rt.name AS "recordTypeName", rf.file_name AS "fileName",
         rf.correlation_id AS "correlationId", rf.file_type AS "fileType", rf.size::float8 AS size,
         rf.storage_key AS "storageKey", ${VERSION_ID_SQL} AS "versionId", rf.uploader,
         rf.uploader_open_id AS "uploaderOpenId", rf.sha256 = ft.sha256 AS current,
         COALESCE(ss.content_indexing, true) AS indexing, ${VAULT_LANGUAGE_SQL}::text AS language
       FROM ft ${JOIN_FILE}
       JOIN record_types rt ON rt.id = r.record_type_id`,
      [limit, leaseSeconds],
    );
  }

  /**
   * Stores what extraction made of job `id` (`announced` when the same transaction writes its
   * event): its pages replace any earlier ones. A stored page with the very same text (a reindex
   * whose extractor reads it as before, a new version with the same words) is kept as it is: its
   * vector is current (a rename or another language retokenizes the pages), so rewriting it would
   * only churn the indexes and the word list.
   */
  async complete(tx: Tx, id: string, versionId: string | null, o: TextOutcome, announced: boolean): Promise<void> {
    // Derived data: a crash that loses this commit leaves the job pending, and its lease
    // brings it back to be read again, so the commit need not wait for its WAL flush, unless
    // `announced`: the transaction also writes the completion's event to the outbox, which the
    // relay may publish as soon as the commit is visible, before an asynchronous commit is
    // durable; a crash then would leave the event of a completion that was lost.
    if (!announced) await tx.query('SET LOCAL synchronous_commit = off');
    const pages = [id, o.pages.map((p) => p.page), o.pages.map((p) => p.text), o.pages.map((p) => p.ocr)];
    await preparedQuery(
      tx,
      'text_pages_drop_changed',
      `DELETE FROM file_text_pages p WHERE p.file_text_id = $1 AND NOT EXISTS (
         SELECT 1 FROM unnest($2::int[], $3::text[], $4::bool[]) AS x(page, body, ocr)
         WHERE x.page = p.page AND x.body = p.body AND x.ocr = p.ocr)`,
      pages,
    );
    if (o.pages.length > 0) {
      await preparedQuery(
        tx,
        'text_pages_add',
        `INSERT INTO file_text_pages (file_text_id, page, tenant_id, body, ocr, language, tsv)
         SELECT ft.id, x.page, ft.tenant_id, x.body, x.ocr, ${VAULT_LANGUAGE_SQL}, ${pageTsvSql('x.body', VAULT_LANGUAGE_SQL)}
         FROM unnest($2::int[], $3::text[], $4::bool[]) AS x(page, body, ocr)
         CROSS JOIN file_texts ft ${JOIN_FILE}
         WHERE ft.id = $1 AND NOT EXISTS (SELECT 1 FROM file_text_pages p WHERE p.file_text_id = $1 AND p.page = x.page)`,
        pages,
      );
    }
    await preparedQuery(
      tx,
      'text_jobs_complete',
      `UPDATE file_texts SET status = $2, reason = $3, detected_type = $4, extractor_version = $5, pages = $6,
         version_id = COALESCE($7, version_id), lease_until = NULL, extracted_at = now()
       WHERE id = $1`,
      [id, o.status, o.reason, o.detectedType, o.extractorVersion, o.pages.length, versionId],
    );
  }

  /**
   * Recomputes the tsvectors of the pages of the files of these records, or of these vaults
   * (a rename, new fields, a new caption, another language), from the stored text: no
   * re-extraction. One statement for all of them.
   */
  async retokenize(scope: 'record' | 'vault', ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    // Most renamed records have no file text: a cheap look first. PostgreSQL plans the UPDATE
    // anew for each list of ids (its generic plan looks dearer), which took a hundred times its
    // run when it found nothing (docs/benchmarks.md).
    if (scope === 'record') {
      const [{ found }] = await preparedQuery<{ found: boolean }>(
        this.tx.none,
        'text_pages_of_records',
        `SELECT EXISTS (SELECT 1 FROM record_files rf
           JOIN file_texts ft ON ft.record_file_id = rf.id
           JOIN file_text_pages p ON p.file_text_id = ft.id
          WHERE rf.record_id = ANY($1::uuid[])) AS found`,
        [ids],
      );
      if (!found) return 0;
    }
    const rows = await preparedQuery(
      this.tx.none,
      `text_pages_retokenize_${scope}`,
      `UPDATE file_text_pages p SET language = ${VAULT_LANGUAGE_SQL}, tsv = ${pageTsvSql('p.body', VAULT_LANGUAGE_SQL)}
       FROM file_texts ft ${JOIN_FILE}
       WHERE p.file_text_id = ft.id AND ${scope === 'record' ? 'r.id' : 'v.id'} = ANY($1::uuid[])
       RETURNING 1`,
      [ids],
    );
    return rows.length;
  }

  /** Removes the extracted text of every file of the vault (indexing turned off). */
  async dropVault(vaultId: string): Promise<void> {
    await this.tx.none.query(
      `DELETE FROM file_texts ft USING record_files rf, records r
       WHERE ft.record_file_id = rf.id AND rf.record_id = r.id AND r.vault_id = $1`,
      [vaultId],
    );
  }
}
