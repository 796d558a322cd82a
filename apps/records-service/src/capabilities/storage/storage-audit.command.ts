import { loadEnv, ServiceEnv } from '@vault/platform/config';
import { connectDatabase, dataSourceOptions } from '@vault/platform/persistence';
import type { DataSource } from 'typeorm';
import { auditStorage, KnownKeys } from './storage-audit';
import { storageFromEnv } from './storage.module';
import { FilesEnv } from './storage.env';

/** The argument of main.js that runs the audit instead of the service. */
export const STORAGE_AUDIT_MODE = 'storage-audit';

/** What the database knows of storage keys. */
export async function knownKeys(db: DataSource): Promise<KnownKeys> {
  const keys = async (sql: string) => new Set(((await db.query(sql)) as { k: string }[]).map((r) => r.k));
  const unblobbed = await db.query(
    `SELECT DISTINCT f.storage_key AS k FROM record_files f WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.storage_key = f.storage_key)`,
  );
  return {
    blobs: await keys(`SELECT storage_key AS k FROM blobs`),
    queued: await keys(`SELECT storage_key AS k FROM file_purges`),
    uploading: await keys(`SELECT storage_key AS k FROM resumable_uploads`),
    unblobbedFiles: (unblobbed as { k: string }[]).map((r) => r.k),
  };
}

/**
 * `main.js storage-audit` (npm run storage:audit): lists the store FILE_STORAGE names and the
 * database's blobs, prints the report as JSON and exits 1 when either side has orphans.
 */
export async function runStorageAudit(): Promise<void> {
  const env = loadEnv(ServiceEnv);
  const storage = storageFromEnv(loadEnv(FilesEnv));
  const db = await connectDatabase(dataSourceOptions(env.DATABASE_URL, { entities: [], migrations: [] }, false));
  try {
    const report = await auditStorage(storage, await knownKeys(db));
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    process.exitCode = report.orphanObjects.length + report.missingObjects.length > 0 ? 1 : 0;
  } catch (err) {
    process.stderr.write(`storage audit failed: ${String(err)}\n`);
    process.exitCode = 2;
  } finally {
    await db.destroy();
  }
}
