/**
 * The SQL that says "live" and "current version" in the search statements (docs/search.md,
 * Live state). The current bytes are always `record_files.sha256` (a copy of the current
 * version's).
 */

/** Conditions on aliases v (vault), r (record), rf (record file): all three live (a trashed record keeps status DELETED). */
export const LIVE_SQL = `r.status <> 'DELETED' AND v.deleted_at IS NULL AND rf.deleted_at IS NULL`;

/** The id of rf's current version (file_versions), or of its text row ft for a file without one. */
export const VERSION_ID_SQL = `COALESCE((SELECT fv.id FROM file_versions fv WHERE fv.file_id = rf.id AND fv.current), ft.id)`;
