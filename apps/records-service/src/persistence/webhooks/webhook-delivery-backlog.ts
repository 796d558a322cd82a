import type { EntityManager } from 'typeorm';

/** The deliveries not yet delivered, for the metrics (read at scrape time). */
export interface DeliveryBacklog {
  /** Deliveries pending (due, leased or waiting for a retry). */
  pending: number;
  /** Pending deliveries whose last attempt failed (retried along the schedule). */
  failing: number;
  /** Seconds since the oldest pending delivery was created (0 when none). */
  oldestSeconds: number;
}

/** One statement over the pending deliveries (the pending-order index). */
export async function deliveryBacklog(m: EntityManager): Promise<DeliveryBacklog> {
  const [row]: { pending: number; failing: number; oldest: number }[] = await m.query(
    `SELECT count(*)::int AS pending,
            count(*) FILTER (WHERE last_error IS NOT NULL)::int AS failing,
            coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
       FROM webhook_deliveries WHERE status = 'pending'`,
  );
  return { pending: row.pending, failing: row.failing, oldestSeconds: row.oldest };
}
