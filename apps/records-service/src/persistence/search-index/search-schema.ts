import { Injectable } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';

/**
 * The SQL that says "live" and "current bytes" for the search queries, for the schema the
 * database has: record files in the trash (`deleted_at`) and file versions with blobs
 * come in their own migrations (docs/search.md, Live state). Read once per process.
 */
export interface SearchSchemaSql {
  /** Conditions on aliases v (vault), r (record), rf (record file): all three live. */
  live: string;
  /** The storage key and version id of the current bytes of rf. */
  currentBytes: { storageKey: string; versionId: string; joins: string };
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
       WHERE table_schema = current_schema() AND table_name IN ('vaults', 'record_files')
         AND column_name IN ('deleted_at', 'current_version_id')`,
    );
    const has = (t: string, c: string) => rows.some((r) => r.table_name === t && r.column_name === c);
    const live = [
      `r.status <> 'DELETED'`,
      has('vaults', 'deleted_at') ? 'v.deleted_at IS NULL' : '',
      has('record_files', 'deleted_at') ? 'rf.deleted_at IS NULL' : '',
    ].filter(Boolean);
    const currentBytes = has('record_files', 'current_version_id')
      ? {
          storageKey: 'b.storage_key',
          versionId: 'fv.id',
          joins: 'JOIN file_versions fv ON fv.id = rf.current_version_id JOIN blobs b ON b.id = fv.blob_id',
        }
      : { storageKey: 'rf.storage_key', versionId: 'NULL::uuid', joins: '' };
    return { live: live.join(' AND '), currentBytes };
  }
}
