import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';
import { LIVE_SQL, VERSION_ID_SQL } from './live-state';
import { preparedQuery } from '../entity-rows';

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
  /** Whether the vault indexes content. */
  indexing: boolean;
}

/** Markers around matched words in snippets (escaped and turned into <mark> by the service). */
export const MARK_START = '\u0001';
export const MARK_END = '\u0002';

/** Reads of the content index: the search itself and a file's extracted text. */
@Injectable()
export class SearchRepository {
  constructor(private readonly tx: Transactions) {}

  /**
   * One statement: candidate pages from the GIN indexes (full text, one condition per
   * language so that each is an index scan; word parts through the tenant's word list), then
   * only those whose vault, record and file are live, whose bytes are the file's current
   * ones, whose vault indexes content and that the caller may read through a vault role or
   * a role on the record; best first.
   *
   * The statement is a named prepared statement with a generic plan: its text depends only
   * on the shape of the search (word parts or not, excluded words or not, which filters), so
   * each connection plans each shape once. Planned per query it cost about as much CPU as
   * running it (the five languages' conditions; measured in docs/benchmarks.md).
   */
  async search(s: SearchParams): Promise<SearchRow[]> {
    const { sql, params } = searchSql(s);
    const name = `search_${createHash('sha256').update(sql).digest('base64url').slice(0, 20)}`;
    return this.tx.run(async (tx) => {
      // A page's text lives out of line (TOAST): a sequential scan reads and decompresses
      // every page, which the planner does not count (measured: 600 ms against 2 ms through
      // the GIN index for 20,000 pages). The indexes are always the way here; the generic
      // plan is made under these settings, the first time a connection runs it (and again
      // after an ANALYZE invalidates it, hence each time).
      await tx.query('SET LOCAL enable_seqscan = off; SET LOCAL plan_cache_mode = force_generic_plan');
      return preparedQuery<SearchRow>(tx, name, sql, params);
    });
  }

  /** The live file `fileName` of the record with the state of its current bytes' text (null fields: never queued). */
  async fileText(recordId: string, fileName: string): Promise<FileTextRow | null> {
    const rows: FileTextRow[] = await this.tx.none.query(
      `SELECT ft.id, rf.file_name AS "fileName", CASE WHEN ft.id IS NOT NULL THEN ${VERSION_ID_SQL} END AS "versionId",
         ft.status, ft.reason,
         ft.detected_type AS "detectedType", COALESCE(ss.language, 'simple'::regconfig)::text AS language,
         COALESCE(ss.content_indexing, true) AS indexing
       FROM record_files rf JOIN records r ON r.id = rf.record_id JOIN vaults v ON v.id = r.vault_id
       LEFT JOIN search_settings ss ON ss.vault_id = v.id
       LEFT JOIN file_texts ft ON ft.record_file_id = rf.id AND ft.sha256 = rf.sha256
       WHERE rf.record_id = $1 AND rf.file_name = $2 AND ${LIVE_SQL}`,
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

const LANGUAGE = /^[a-z]+$/;

/** Token types of the default parser that are words (ts_token_type('default')): ASCII, letters, letters and digits, their hyphenated parts. */
const WORD_TOKENS = '1, 2, 3, 9, 10, 11';

/** Words of the word list a word part may stand for, at most (the most frequent first). */
export const PART_WORDS = 1000;

/**
 * The search statement and its parameters (see SearchRepository.search).
 *
 * - `terms`: the query of each language, parsed once per statement (under a generic plan an
 *   expression of $1 in the select list would be parsed again for every row ranked), and the
 *   query's own words as that language's lexemes (for the highlighting below).
 * - `readable`: the caller's vaults (a vault role) and records (a record role), computed once
 *   and applied as a semi-join, before any page is ranked.
 * - Word parts: each is looked for in the tenant's word list (`search_words`, trigram index on
 *   the word, at most PART_WORDS words), and the words found join the query of each language
 *   as alternatives: (words with part 1) & (words with part 2) & !excluded. A part that is in
 *   no word matches nothing, so its query stays the plain one.
 * - `hits`: the pages that match, one GIN condition per language, ranked as they are read
 *   (the vector is in the row: carried on, it would be copied into the CTE's store); `found`:
 *   those joined to their live file, record and vault, and only the page of answers kept
 *   (LIMIT in the same query).
 * - The headline is computed for the returned rows only. Folding makes "Buero" find "Büro",
 *   but ts_headline compares the page's own words, unfolded, with the folded query: the
 *   page's words that fold to a query word, or contain a word part, are added to the query
 *   it highlights, so "Büro" and "Hausratversicherung" are marked as the words they are.
 */
function searchSql(s: SearchParams): { sql: string; params: unknown[] } {
  const params: unknown[] = [s.query, s.tenantId, s.openId, s.vaultRoles, s.recordRoles];
  const arg = (v: unknown) => `$${params.push(v)}`;
  const languages = s.languages.filter((l) => LANGUAGE.test(l));
  const parts = s.parts.length ? arg(s.parts) : null;
  const excluded = s.excluded ? ` && !! websearch_to_tsquery(t.cfg, search_fold(${arg(s.excluded)}))` : '';
  const match = languages
    .map((l) => `(p.language = '${l}'::regconfig AND p.tsv @@ (SELECT m FROM queries WHERE cfg = '${l}'::regconfig))`)
    .join(' OR ');
  const fullText = `CASE p.language ${languages
    .map((l) => `WHEN '${l}'::regconfig THEN ts_rank_cd(p.tsv, (SELECT q FROM queries WHERE cfg = '${l}'::regconfig), 32)`)
    .join(' ')} END`;
  // a page found by word parts only ranks 0.01
  const rank = parts ? `GREATEST(${fullText}, 0.01)` : fullText;
  const partCtes = parts
    ? `part_words AS MATERIALIZED (
      SELECT x.i, w.word FROM unnest(${parts}::text[]) WITH ORDINALITY AS x(part, i)
      CROSS JOIN LATERAL (SELECT sw.word FROM search_words sw
        WHERE sw.tenant_id = $2 AND sw.word LIKE '%' || search_fold(x.part) || '%'
        ORDER BY sw.pages DESC, sw.word LIMIT ${PART_WORDS}) w),
    part_query AS MATERIALIZED (
      SELECT t.cfg, CASE WHEN count(g.i) = ${s.parts.length} AND numnode(search_tsquery_and(g.q)) > 0
        THEN search_tsquery_and(g.q)${excluded} ELSE ''::tsquery END AS q
      FROM terms t
      LEFT JOIN LATERAL (SELECT pw.i, search_tsquery_or(plainto_tsquery(t.cfg, pw.word)) AS q
        FROM part_words pw GROUP BY pw.i) g ON true
      GROUP BY t.cfg),
    queries AS MATERIALIZED (
      SELECT t.cfg, t.q, t.words, t.q || pq.q AS m FROM terms t JOIN part_query pq ON pq.cfg = t.cfg),`
    : `queries AS MATERIALIZED (SELECT t.cfg, t.q, t.words, t.q AS m FROM terms t),`;
  const filters = [
    s.vaultId ? `v.id = ${arg(s.vaultId)}` : '',
    s.recordType ? `r.record_type_id IN (SELECT id FROM record_types WHERE name = ${arg(s.recordType)})` : '',
    s.fileType ? `rf.file_type = ${arg(s.fileType)}` : '',
  ].filter(Boolean);
  // a page's words with letters beyond ASCII that fold to a query word or hold a word part
  const partWord = parts
    ? `OR search_fold(t.token) LIKE ANY (ARRAY(SELECT '%' || search_fold(w) || '%' FROM unnest(${parts}::text[]) w))`
    : '';
  const sql = `WITH terms AS MATERIALIZED (
      SELECT l.cfg, websearch_to_tsquery(l.cfg, search_fold($1)) AS q,
        tsvector_to_array(to_tsvector(l.cfg, search_fold($1))) AS words
      FROM unnest(ARRAY[${languages.map((l) => `'${l}'`).join(', ')}]::regconfig[]) AS l(cfg)),
    ${partCtes}
    readable AS MATERIALIZED (
      SELECT vm.vault_id, NULL::uuid AS record_id FROM vault_memberships vm
      WHERE vm.tenant_id = $2 AND vm.open_id = $3 AND vm.role = ANY($4::text[])
      UNION ALL
      SELECT r.vault_id, r.id FROM record_memberships rm JOIN records r ON r.id = rm.record_id
      WHERE rm.tenant_id = $2 AND rm.open_id = $3 AND rm.role = ANY($5::text[])),
    hits AS MATERIALIZED (
      SELECT p.file_text_id, p.page, ${rank} AS rank FROM file_text_pages p WHERE p.tenant_id = $2 AND (${match})),
    found AS (
      SELECT v.id AS "vaultId", r.id AS "recordId", r.name AS "recordName", rf.file_name AS "fileName",
        rf.id AS file_id, ft.id AS text_id, p.page, p.rank
      FROM hits p
      JOIN file_texts ft ON ft.id = p.file_text_id AND ft.status = 'extracted'
      JOIN record_files rf ON rf.id = ft.record_file_id AND rf.sha256 = ft.sha256
      JOIN records r ON r.id = rf.record_id
      JOIN vaults v ON v.id = r.vault_id AND v.tenant_id = $2
      LEFT JOIN search_settings ss ON ss.vault_id = v.id
      WHERE ${LIVE_SQL} AND COALESCE(ss.content_indexing, true)
        AND EXISTS (SELECT 1 FROM readable x WHERE x.vault_id = v.id AND (x.record_id IS NULL OR x.record_id = r.id))
        ${filters.map((f) => `AND ${f}`).join(' ')}
      ORDER BY rank DESC, p.file_text_id, p.page
      LIMIT ${arg(s.limit)} OFFSET ${arg(s.offset)})
    SELECT f."vaultId", f."recordId", f."recordName", f."fileName",
      COALESCE((SELECT fv.id FROM file_versions fv WHERE fv.file_id = f.file_id AND fv.current), f.text_id) AS "versionId",
      f.page, f.rank::float8 AS score,
      ts_headline(p.language, p.body, qs.m || COALESCE(hl.q, ''::tsquery),
        'StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "')
        AS snippet
    FROM found f JOIN file_text_pages p ON p.file_text_id = f.text_id AND p.page = f.page
    JOIN queries qs ON qs.cfg = p.language
    LEFT JOIN LATERAL (
      SELECT websearch_to_tsquery(p.language, string_agg(DISTINCT t.token, ' or ')) AS q
      FROM ts_parse('default', p.body) t
      WHERE p.body ~ '[^[:ascii:]]' AND t.tokid IN (${WORD_TOKENS}) AND t.token ~ '[^[:ascii:]]' AND (
        tsvector_to_array(to_tsvector(p.language, search_fold(t.token))) && qs.words
        ${partWord})) hl ON true
    ORDER BY f.rank DESC, f.text_id, f.page`;
  return { sql, params };
}
