/**
 * The tsvector of a page (aliases r: record, rf: record file; `body` and `lang` are SQL
 * expressions): the record's name weighs A, its description, reference and fields B, the
 * file's name, caption and title C, the page's text D. Every part is folded with
 * search_fold, as the query is.
 */
export function pageTsvSql(body: string, lang: string): string {
  const part = (text: string, weight: string) => `setweight(to_tsvector(${lang}, search_fold(${text})), '${weight}')`;
  const fields = `CASE WHEN jsonb_typeof(r.record_details) = 'object'
      THEN (SELECT string_agg(value, ' ') FROM jsonb_each_text(r.record_details)) END`;
  return [
    part(`r.name`, 'A'),
    part(`concat_ws(' ', r.description, r.unique_reference, ${fields})`, 'B'),
    part(`concat_ws(' ', rf.file_name, rf.caption, rf.upload_title)`, 'C'),
    part(body, 'D'),
  ].join(' || ');
}

/** The text search configuration of a vault (alias ss: its search_settings row, if any). */
export const VAULT_LANGUAGE_SQL = `COALESCE(ss.language, 'simple'::regconfig)`;

/** The rows of an UPDATE or DELETE … RETURNING (TypeORM answers them as [rows, count]). */
export function returned<T>(result: unknown): T[] {
  const r = result as unknown[];
  return (Array.isArray(r[0]) ? r[0] : r) as T[];
}
