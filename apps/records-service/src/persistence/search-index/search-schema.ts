import { Injectable } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';

/**
 * The SQL that says "live" and "current version" for the search queries, for the schema the
 * database has: the trash (`deleted_at`) and file versions come in their own migrations
 * (docs/search.md, Live state). The current bytes are always `record_files.sha256` (a copy
 * of the current version's). Read once per process.
 */
export interface SearchSchemaSql {
  /** Conditions on aliases v (vault), r (record), rf (record file): all three live. */
  live: string;
  /** The id of rf's current version (file_versions), or of its text row ft where files have no versions. */
  versionId: string;
}

@Injectable()
export class SearchSchema {
  private sql?: Promise<SearchSchemaSql>;

  constructor(private readonly tx: Transactions) {}

  get(): Promise<SearchSchemaSql> {
    this.sql ??= this.probe().catch((e: unknown) => {
      this.sql = undefined;
      throw e;
    });
    return this.sql;
  }

  private async probe(): Promise<SearchSchemaSql> {
    const rows: { table_name: string; column_name: string }[] = await this.tx.none.query(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = current_schema()
         AND ((table_name IN ('vaults', 'record_files') AND column_name = 'deleted_at')
           OR (table_name = 'file_versions' AND column_name = 'current'))`,
    );
    const has = (t: string) => rows.some((r) => r.table_name === t);
    const live = [
      `r.status <> 'DELETED'`,
      has('vaults') ? 'v.deleted_at IS NULL' : '',
      has('record_files') ? 'rf.deleted_at IS NULL' : '',
    ].filter(Boolean);
    const versionId = has('file_versions')
      ? `COALESCE((SELECT fv.id FROM file_versions fv WHERE fv.file_id = rf.id AND fv.current), ft.id)`
      : 'ft.id';
    return { live: live.join(' AND '), versionId };
  }
}
