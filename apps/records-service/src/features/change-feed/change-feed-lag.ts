import { exportMetrics } from '@vault/platform/observability';
import { Histogram } from 'prom-client';

/** From an event's occurrence (the change's commit) to its row in the change feed. */
const writeLag = new Histogram({
  name: 'change_feed_write_lag_seconds',
  help: 'Seconds from a vault event occurring to its change-feed row being written (what a live stream waits at least).',
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [],
});

/** Exports the lag series (the process running the change-feed writer). */
export function exportFeedLag(): void {
  exportMetrics(writeLag);
}

/** Observes the lag of rows just written, each by its event's occurrence time. */
export function observeFeedLag(rows: { occurredAt: string }[], now = Date.now()): void {
  for (const r of rows) {
    const at = Date.parse(r.occurredAt);
    if (Number.isFinite(at)) writeLag.observe(Math.max(0, (now - at) / 1000));
  }
}
