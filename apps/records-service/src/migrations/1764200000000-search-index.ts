import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Content search (docs/search.md): the text of each file version, one row per page with
 * its tsvector, the extraction queue (status of each version), and each vault's switch
 * and language. Index rows belong to the file row (ON DELETE CASCADE): a purge removes
 * them in its own transaction; every search joins the live state and the caller's roles.
 *
 * `search_fold` folds case-insensitive variants the same way for the index and the query:
 * German umlauts as their two-letter spellings (Büro = Buero), then accents removed
 * (unaccent). It is IMMUTABLE so that the trigram index can use it; the dictionary is
 * named with its schema so that the result cannot depend on the search_path.
 */
export class SearchIndex1764200000000 implements MigrationInterface {
  name = 'SearchIndex1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    const [{ schema }] = await q.query(
      `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
       WHERE e.extname = 'unaccent'`,
    );
    await q.query(`
      CREATE FUNCTION search_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
        SELECT lower(${schema}.unaccent('${schema}.unaccent'::regdictionary,
          replace(replace(replace(replace(replace(replace(t,
            'ä', 'ae'), 'ö', 'oe'), 'ü', 'ue'), 'Ä', 'Ae'), 'Ö', 'Oe'), 'Ü', 'Ue')))
      $$`);
    await q.query(`
      CREATE TABLE search_settings (
        vault_id uuid PRIMARY KEY REFERENCES vaults(id) ON DELETE CASCADE,
        content_indexing boolean NOT NULL DEFAULT true,
        language regconfig NOT NULL DEFAULT 'simple',
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE file_texts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        record_file_id uuid NOT NULL REFERENCES record_files(id) ON DELETE CASCADE,
        sha256 text NOT NULL,
        version_id uuid,
        tenant_id text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'extracted', 'failed', 'skipped')),
        reason text,
        detected_type text,
        extractor_version integer NOT NULL DEFAULT 0,
        pages integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        extracted_at timestamptz,
        CONSTRAINT file_texts_version_uq UNIQUE (record_file_id, sha256)
      )`);
    await q.query(`CREATE INDEX file_texts_pending_idx ON file_texts (created_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX file_texts_extractor_idx ON file_texts (extractor_version, id)`);
    await q.query(`
      CREATE TABLE file_text_pages (
        file_text_id uuid NOT NULL REFERENCES file_texts(id) ON DELETE CASCADE,
        page integer NOT NULL,
        tenant_id text NOT NULL,
        body text NOT NULL,
        ocr boolean NOT NULL DEFAULT false,
        language regconfig NOT NULL,
        tsv tsvector NOT NULL,
        PRIMARY KEY (file_text_id, page)
      )`);
    await q.query(`CREATE INDEX file_text_pages_tsv_idx ON file_text_pages USING gin (tsv)`);
    await q.query(`CREATE INDEX file_text_pages_trgm_idx ON file_text_pages USING gin (search_fold(body) gin_trgm_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE file_text_pages`);
    await q.query(`DROP TABLE file_texts`);
    await q.query(`DROP TABLE search_settings`);
    await q.query(`DROP FUNCTION search_fold(text)`);
  }
}
