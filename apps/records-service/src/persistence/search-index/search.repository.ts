import { Injectable } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';
import { SearchSchema } from './search-schema';

/** A search as the repository runs it: the caller, the roles that may read file content, the query. */
export interface SearchParams {
  tenantId: string;
  openId: string;
  /** Vault roles and record roles that may read a record's files. */
  vaultRoles: string[];
  recordRoles: string[];
  /** Every text search configuration pages may have been indexed with. */
  languages: readonly string[];
  /** The query in websearch syntax, its excluded words (websearch syntax too, '' when none). */
  query: string;
  excluded: string;
  /** Words (LIKE-escaped) a page must all contain, also inside longer words; [] for none. */
  parts: string[];
  vaultId?: string;
  recordType?: string;
  fileType?: string;
  limit: number;
  offset: number;
}

export interface SearchRow {
  vaultId: string;
  recordId: string;
  recordName: string;
  fileName: string;
  versionId: string;
  page: number;
  snippet: string;
  score: number;
}

export interface FileTextRow {
  id: string | null;
  fileName: string;
  versionId: string | null;
  status: string | null;
  reason: string | null;
  detectedType: string | null;
  language: string;
}

/** Markers around matched words in snippets (escaped and turned into <mark> by the service). */
export const MARK_START = '\u0001';
export const MARK_END = '\u0002';

/** Reads of the content index: the search itself and a file's extracted text. */
@Injectable()
export class SearchRepository {
  constructor(
    private readonly tx: Transactions,
    private readonly schema: SearchSchema,
  ) {}

  /**
   * One statement: candidate pages from the GIN indexes (full text per language, and word
   * parts through the trigram index), then only those whose vault, record and file are
   * live, whose bytes are the file's current ones, whose vault indexes content and that the
   * caller may read through a vault role or a role on the record; best first.
   */
  async search(s: SearchParams): Promise<SearchRow[]> {
    const { live, versionId } = await this.schema.get();
    return this.tx.none.query(
      `WITH q AS (
         SELECT l.cfg, websearch_to_tsquery(l.cfg, search_fold($1)) AS tsq, websearch_to_tsquery(l.cfg, search_fold($2)) AS neg
         FROM unnest($3::regconfig[]) AS l(cfg)),
       hits AS (
         SELECT p.file_text_id, p.page, ts_rank_cd(p.tsv, q.tsq, 32) AS rank
         FROM file_text_pages p JOIN q ON q.cfg = p.language AND p.tsv @@ q.tsq
         WHERE p.tenant_id = $4
         UNION ALL
         SELECT p.file_text_id, p.page, 0.01
         FROM file_text_pages p JOIN q ON q.cfg = p.language
         WHERE p.tenant_id = $4 AND cardinality($5::text[]) > 0 AND search_fold(p.body) LIKE ALL (ARRAY(SELECT '%' || search_fold(w) || '%' FROM unnest($5::text[]) AS w))
           AND ($2 = '' OR NOT p.tsv @@ q.neg)),
       best AS (SELECT file_text_id, page, max(rank) AS rank FROM hits GROUP BY 1, 2),
       found AS (
         SELECT v.id AS "vaultId", r.id AS "recordId", r.name AS "recordName", rf.file_name AS "fileName",
           ${versionId} AS "versionId", b.page, b.rank, b.file_text_id
         FROM best b
         JOIN file_texts ft ON ft.id = b.file_text_id AND ft.status = 'extracted'
         JOIN record_files rf ON rf.id = ft.record_file_id AND rf.sha256 = ft.sha256
         JOIN records r ON r.id = rf.record_id
         JOIN vaults v ON v.id = r.vault_id AND v.tenant_id = $4
         LEFT JOIN search_settings ss ON ss.vault_id = v.id
         LEFT JOIN vault_memberships vm ON vm.vault_id = v.id AND vm.open_id = $6 AND vm.tenant_id = v.tenant_id
         LEFT JOIN record_memberships rm ON rm.record_id = r.id AND rm.open_id = $6 AND rm.tenant_id = v.tenant_id
         WHERE ${live} AND COALESCE(ss.content_indexing, true)
           AND (vm.role = ANY($7::text[]) OR rm.role = ANY($8::text[]))
           AND ($9::uuid IS NULL OR v.id = $9)
           AND ($10::text IS NULL OR r.record_type_id IN (SELECT id FROM record_types WHERE name = $10))
           AND ($11::text IS NULL OR rf.file_type = $11)
         ORDER BY b.rank DESC, b.file_text_id, b.page
         LIMIT $12 OFFSET $13)
       SELECT f."vaultId", f."recordId", f."recordName", f."fileName", f."versionId", f.page, f.rank::float8 AS score,
         ts_headline(p.language, p.body, q.tsq,
           'StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "')
           AS snippet
       FROM found f
       JOIN file_text_pages p ON p.file_text_id = f.file_text_id AND p.page = f.page
       JOIN q ON q.cfg = p.language
       ORDER BY f.rank DESC, f.file_text_id, f.page`,
      [
        s.query,
        s.excluded,
        s.languages,
        s.tenantId,
        s.parts,
        s.openId,
        s.vaultRoles,
        s.recordRoles,
        s.vaultId ?? null,
        s.recordType ?? null,
        s.fileType ?? null,
        s.limit,
        s.offset,
      ],
    );
  }

  /** The live file `fileName` of the record with the state of its current bytes' text (null fields: never queued). */
  async fileText(recordId: string, fileName: string): Promise<FileTextRow | null> {
    const { live, versionId } = await this.schema.get();
    const rows: FileTextRow[] = await this.tx.none.query(
      `SELECT ft.id, rf.file_name AS "fileName", CASE WHEN ft.id IS NOT NULL THEN ${versionId} END AS "versionId",
         ft.status, ft.reason,
         ft.detected_type AS "detectedType", COALESCE(ss.language, 'simple'::regconfig)::text AS language
       FROM record_files rf JOIN records r ON r.id = rf.record_id JOIN vaults v ON v.id = r.vault_id
       LEFT JOIN search_settings ss ON ss.vault_id = v.id
       LEFT JOIN file_texts ft ON ft.record_file_id = rf.id AND ft.sha256 = rf.sha256
       WHERE rf.record_id = $1 AND rf.file_name = $2 AND ${live}`,
      [recordId, fileName],
    );
    return rows[0] ?? null;
  }

  /** The pages of an extraction, in order. */
  pages(fileTextId: string): Promise<{ page: number; text: string; ocr: boolean }[]> {
    return this.tx.none.query(`SELECT page, body AS text, ocr FROM file_text_pages WHERE file_text_id = $1 ORDER BY page`, [
      fileTextId,
    ]);
  }

  /** The vault's search settings (defaults when it has no row). */
  async settings(vaultId: string): Promise<{ contentIndexing: boolean; language: string }> {
    const rows: { contentIndexing: boolean; language: string }[] = await this.tx.none.query(
      `SELECT content_indexing AS "contentIndexing", language::text AS language FROM search_settings WHERE vault_id = $1`,
      [vaultId],
    );
    return rows[0] ?? { contentIndexing: true, language: 'simple' };
  }

  async saveSettings(vaultId: string, contentIndexing: boolean, language: string): Promise<void> {
    await this.tx.none.query(
      `INSERT INTO search_settings (vault_id, content_indexing, language) VALUES ($1, $2, $3::regconfig)
       ON CONFLICT (vault_id) DO UPDATE SET content_indexing = $2, language = $3::regconfig, updated_at = now()`,
      [vaultId, contentIndexing, language],
    );
  }
}
