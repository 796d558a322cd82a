import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Word parts through a word list (docs/search.md, Matching). A trigram index on every page's
 * folded text made a word part cost a scan of every page that shares its trigrams, and a
 * recheck that folds each of them again (measured: over 100 ms for one word over 100,000
 * pages); it also grew by some 2,000 index entries per page written.
 *
 * `search_words` holds each tenant's distinct words (folded, as `simple` lexemes) with the
 * number of pages that hold them; statement triggers on `file_text_pages` count them up and
 * down, so a word leaves the list with its last page (a purge, a vault that stops indexing, a
 * replaced text). A word part is looked for in this list (trigram index on the word), and the
 * words found are searched in the pages' tsvectors through their GIN index.
 *
 * The vectors get one GIN index per language (see below). The GIN indexes here are written
 * without a pending list (fastupdate off): with it, every search scanned up to 4 MB of entries
 * not yet merged (measured: 150 ms for one word over 100,000 freshly written pages).
 *
 * Rows are locked in (tenant, word) order on both sides, so that concurrent writers wait for
 * each other instead of deadlocking.
 */
/** The text search configurations of SEARCH_LANGUAGES when this migration was written (a new one needs its index). */
const LANGUAGES = ['simple', 'english', 'german', 'french', 'spanish'];

export class SearchWords1764450000000 implements MigrationInterface {
  name = 'SearchWords1764450000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION search_words_of(t text) RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
        SELECT unnest(tsvector_to_array(to_tsvector('pg_catalog.simple'::regconfig, search_fold(t))))
      $$`);
    await q.query(`
      CREATE TABLE search_words (
        tenant_id text NOT NULL,
        word text NOT NULL,
        pages integer NOT NULL,
        PRIMARY KEY (tenant_id, word)
      )`);
    await q.query(`CREATE INDEX search_words_trgm_idx ON search_words USING gin (word gin_trgm_ops) WITH (fastupdate = off)`);
    await q.query(`CREATE AGGREGATE search_tsquery_or(tsquery) (SFUNC = tsquery_or, STYPE = tsquery)`);
    await q.query(`CREATE AGGREGATE search_tsquery_and(tsquery) (SFUNC = tsquery_and, STYPE = tsquery)`);
    await q.query(`
      CREATE FUNCTION search_words_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO search_words (tenant_id, word, pages)
        SELECT n.tenant_id, w.word, count(*) FROM added n CROSS JOIN LATERAL search_words_of(n.body) AS w(word)
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (tenant_id, word) DO UPDATE SET pages = search_words.pages + EXCLUDED.pages;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION search_words_removed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        WITH gone AS (
          SELECT o.tenant_id, w.word, count(*) AS n FROM removed o CROSS JOIN LATERAL search_words_of(o.body) AS w(word)
          GROUP BY 1, 2),
        locked AS (
          SELECT s.tenant_id, s.word, s.pages, g.n FROM search_words s
          JOIN gone g ON g.tenant_id = s.tenant_id AND g.word = s.word
          ORDER BY s.tenant_id, s.word FOR UPDATE OF s),
        emptied AS (
          DELETE FROM search_words s USING locked l
          WHERE s.tenant_id = l.tenant_id AND s.word = l.word AND l.pages <= l.n)
        UPDATE search_words s SET pages = s.pages - l.n FROM locked l
        WHERE s.tenant_id = l.tenant_id AND s.word = l.word AND l.pages > l.n;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER file_text_pages_words_added AFTER INSERT ON file_text_pages
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION search_words_added()`);
    await q.query(`
      CREATE TRIGGER file_text_pages_words_removed AFTER DELETE ON file_text_pages
      REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION search_words_removed()`);
    // the pages already stored
    await q.query(`
      INSERT INTO search_words (tenant_id, word, pages)
      SELECT p.tenant_id, w.word, count(*) FROM file_text_pages p CROSS JOIN LATERAL search_words_of(p.body) AS w(word)
      GROUP BY 1, 2`);
    await q.query(`DROP INDEX file_text_pages_trgm_idx`);
    // One GIN index per language: the search's condition per language (language = L AND
    // tsv @@ q_L) is then answered by the index alone, and the heap scan no longer reads and
    // decompresses every matching page's vector again to check it (measured: 30 of 60 ms
    // for one word over 100,000 pages).
    for (const language of LANGUAGES) {
      await q.query(
        `CREATE INDEX file_text_pages_tsv_${language}_idx ON file_text_pages USING gin (tsv) WITH (fastupdate = off)
         WHERE language = '${language}'::regconfig`,
      );
    }
    await q.query(`DROP INDEX file_text_pages_tsv_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX file_text_pages_tsv_idx ON file_text_pages USING gin (tsv)`);
    for (const language of LANGUAGES) await q.query(`DROP INDEX file_text_pages_tsv_${language}_idx`);
    await q.query(`CREATE INDEX file_text_pages_trgm_idx ON file_text_pages USING gin (search_fold(body) gin_trgm_ops)`);
    await q.query(`DROP TRIGGER file_text_pages_words_removed ON file_text_pages`);
    await q.query(`DROP TRIGGER file_text_pages_words_added ON file_text_pages`);
    await q.query(`DROP FUNCTION search_words_removed()`);
    await q.query(`DROP FUNCTION search_words_added()`);
    await q.query(`DROP AGGREGATE search_tsquery_and(tsquery)`);
    await q.query(`DROP AGGREGATE search_tsquery_or(tsquery)`);
    await q.query(`DROP TABLE search_words`);
    await q.query(`DROP FUNCTION search_words_of(text)`);
  }
}
