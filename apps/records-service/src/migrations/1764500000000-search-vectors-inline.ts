import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A page's vector in the page's own row (docs/search.md, Ranking). Ranking reads the vector of
 * every page a query matches; stored out of line (TOAST, the default for values that make a
 * row larger than 2 kB) each read was a lookup in the TOAST table's index and up to three
 * chunk reads more (measured: half of a query's database time over 100,000 pages). With
 * STORAGE MAIN the vector is compressed first and only moved out of line when the row would
 * not fit a page; the page's text, read only for snippets and the text endpoint, still goes
 * out of line first. lz4 where the server has it: decompressing it costs a fraction of pglz.
 *
 * Both apply to values written from now on (new pages, a reindex, a language change); pages
 * stored before keep their form until then, and are read as before.
 */
export class SearchVectorsInline1764500000000 implements MigrationInterface {
  name = 'SearchVectorsInline1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE file_text_pages ALTER COLUMN tsv SET STORAGE MAIN`);
    if (await hasLz4(q)) await q.query(`ALTER TABLE file_text_pages ALTER COLUMN tsv SET COMPRESSION lz4`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE file_text_pages ALTER COLUMN tsv SET STORAGE EXTENDED, ALTER COLUMN tsv SET COMPRESSION DEFAULT`);
  }
}

/** Whether the server was built with lz4 (a choice of default_toast_compression). */
async function hasLz4(q: QueryRunner): Promise<boolean> {
  const rows: { lz4: boolean }[] = await q.query(
    `SELECT 'lz4' = ANY(enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`,
  );
  return rows[0]?.lz4 === true;
}
