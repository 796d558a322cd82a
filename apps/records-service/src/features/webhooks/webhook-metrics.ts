import { exportMetrics, scrapedGauge } from '@vault/platform/observability';
import { Counter } from 'prom-client';
import type { DeliveryBacklog } from '../../persistence/webhooks/webhook-delivery-backlog';

/** Attempts by what became of their delivery. */
const attempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome: delivered (2xx), retry (failed, due again), failed (given up or 410), not_signed (secret unreadable).',
  labelNames: ['outcome'] as const,
  registers: [],
});

const backlog = scrapedGauge(
  'webhook_deliveries',
  'Webhook deliveries not yet delivered: state="pending" (all of them), state="failing" (pending after a failed attempt); read at scrape time.',
  ['state'] as const,
);

const lag = scrapedGauge(
  'webhook_delivery_lag_seconds',
  'Age of the oldest webhook delivery not yet delivered (0 when none): how far delivery lags behind; read at scrape time.',
  [] as const,
);

/** Counts one attempt by the status its delivery got. */
export function countAttempt(status: 'pending' | 'delivered' | 'failed', notSigned = false): void {
  attempts.inc({ outcome: notSigned ? 'not_signed' : status === 'pending' ? 'retry' : status });
}

/** Exports the delivery series of the process running the dispatcher, read by `read` at each scrape. */
export function watchDeliveries(read: () => Promise<DeliveryBacklog>): () => void {
  exportMetrics(attempts);
  let last: Promise<DeliveryBacklog> | undefined;
  // One query per scrape for both gauges.
  const once = () => (last ??= read().finally(() => setTimeout(() => (last = undefined), 1000).unref()));
  const unwatchBacklog = backlog.watch(async () => {
    const b = await once();
    return [
      { labels: { state: 'pending' }, value: b.pending },
      { labels: { state: 'failing' }, value: b.failing },
    ];
  });
  const unwatchLag = lag.watch(async () => [{ labels: {}, value: (await once()).oldestSeconds }]);
  return () => {
    unwatchBacklog();
    unwatchLag();
  };
}
