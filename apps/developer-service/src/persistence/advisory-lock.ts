import { DataSource, EntityManager } from 'typeorm';

/**
 * Runs `work` in one transaction that first takes the PostgreSQL advisory lock `key`
 * (released at commit or rollback): of several replicas doing the same at once, one
 * works while the others wait, then find its work done.
 */
export function underAdvisoryLock<T>(ds: DataSource, key: number, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return ds.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [key]);
    return work(tx);
  });
}
