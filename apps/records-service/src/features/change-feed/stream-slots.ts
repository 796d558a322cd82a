import { Counter, Gauge } from 'prom-client';
import { exportMetrics } from '@vault/platform/observability';

/** Live change-feed streams open in this process (change_feed_streams_open; exported by the processes serving streams). */
const openStreams = new Gauge({
  name: 'change_feed_streams_open',
  help: 'Live change-feed event streams open in this process.',
  registers: [],
});

/** Streams refused with 429 because a cap was reached, by cap (caller or tenant). */
const refusedStreams = new Counter({
  name: 'change_feed_streams_refused_total',
  help: 'Live change-feed event streams refused with 429, by the cap reached (caller or tenant).',
  labelNames: ['cap'] as const,
  registers: [],
});

/** The cap a refused stream reached. */
export type StreamCap = 'caller' | 'tenant';

/**
 * The open live streams of this process counted per caller and per tenant: a stream takes
 * a slot before it starts and gives it back when it ends; a slot beyond either cap is
 * refused (and counted).
 */
export class StreamSlots {
  private readonly byCaller = new Map<string, number>();
  private readonly byTenant = new Map<string, number>();

  constructor(
    private readonly perCaller: number,
    private readonly perTenant: number,
  ) {
    exportMetrics(openStreams, refusedStreams);
  }

  /** A slot for the caller (its release, to call once), or the cap that refuses it. */
  take(tenantId: string, openId: string): { release: () => void } | { refused: StreamCap } {
    const caller = JSON.stringify([tenantId, openId]);
    const refused: StreamCap | undefined =
      (this.byCaller.get(caller) ?? 0) >= this.perCaller
        ? 'caller'
        : (this.byTenant.get(tenantId) ?? 0) >= this.perTenant
          ? 'tenant'
          : undefined;
    if (refused) {
      refusedStreams.inc({ cap: refused });
      return { refused };
    }
    bump(this.byCaller, caller, 1);
    bump(this.byTenant, tenantId, 1);
    openStreams.inc();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        bump(this.byCaller, caller, -1);
        bump(this.byTenant, tenantId, -1);
        openStreams.dec();
      },
    };
  }
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}
