import type { DataSource } from 'typeorm';
import type { Pool, PoolClient } from 'pg';

/**
 * How old a connection's cached query plans may get before they are dropped (5 s).
 *
 * Why: the services read their hottest rows with named prepared statements (each
 * connection parses a statement once and, after five executions, keeps a generic plan
 * that is no dearer than the custom ones). A generic plan is costed for the table as it
 * was then: a lookup by primary key in a table of a few rows is a sequential scan. The
 * plan stays as the table grows, or as churn fills it with row versions that VACUUM has
 * not removed yet, until an ANALYZE of the table invalidates it; until then every
 * execution reads the whole table. Measured in bench:api: the access read of GET vault
 * took 15–60 µs before a round of creates and 320–430 µs after it (the creates raise the
 * vault's record counter, so the six-row `vaults` table held thousands of dead versions),
 * while a plan made at that moment reads the primary key (docs/benchmarks.md). Dropping
 * the plans every few seconds (DISCARD PLANS keeps the prepared statements, and what
 * PostgreSQL learnt of their custom and generic costs) makes them follow the tables; the
 * cost is one new analysis and plan per statement and connection every 5 s.
 */
export const PLAN_MAX_AGE_MS = 5_000;

/** When each connection's plans were last dropped (or the connection was first seen). */
const refreshedAt = new WeakMap<PlanHolder, number>();

/** A connection that runs its queries in order (a pg Client, pooled or not). */
interface PlanHolder {
  query(text: string): Promise<unknown>;
}

/**
 * Called before a connection's next statement: once its plans are `maxAgeMs` old (counted from
 * when it was first seen here), `DISCARD PLANS` is queued ahead of that statement. For a
 * connection of its own, outside a pool (refreshCachedPlans does it for pooled ones).
 */
export function keepPlansFresh(client: PlanHolder, maxAgeMs = PLAN_MAX_AGE_MS, now: () => number = Date.now): void {
  const at = now();
  const last = refreshedAt.get(client);
  if (last !== undefined && at - last < maxAgeMs) return;
  refreshedAt.set(client, at);
  // a broken connection fails the borrower's own statement next, as it would have anyway
  if (last !== undefined) client.query('DISCARD PLANS').catch(() => undefined);
}

/**
 * Keeps the cached plans of the data source's pooled connections at most `maxAgeMs` old:
 * when the pool hands out a connection whose plans are older, `DISCARD PLANS` is queued on
 * it ahead of the borrower's own statements (a connection runs its queries in order).
 * Without a pg pool (another driver), nothing is done.
 */
export function refreshCachedPlans(ds: DataSource, maxAgeMs = PLAN_MAX_AGE_MS, now: () => number = Date.now): void {
  const pool = (ds.driver as unknown as { master?: Pool }).master;
  if (!pool || typeof pool.on !== 'function') return;
  pool.on('acquire', (client: PoolClient) => keepPlansFresh(client, maxAgeMs, now));
}
