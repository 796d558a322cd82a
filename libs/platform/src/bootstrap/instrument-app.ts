import { INestApplicationContext, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { NatsConnectionState } from '../events/nats/nats-connection-state';
import { PgPoolCounts, watchDbPool, watchNatsConnection } from '../observability/metrics';
import { listeningPort, startMetricsServer, whenAppStops } from '../observability/metrics-server';
import { stopTracing } from '../observability/tracing';

export interface InstrumentOptions {
  /** Process name: the label of its NATS connection state. */
  name: string;
  /** METRICS_PORT: a /metrics-only server on this port; undefined: none. */
  metricsPort?: number;
  host: string;
  /** The app has the platform's NATS connection (services and workers, not the gateway). */
  nats: boolean;
  /** The app has a TypeORM DataSource (services and workers, not the gateway): its pool is reported. */
  database: boolean;
}

/**
 * What every app process adds once its Nest app exists: the /metrics server on
 * METRICS_PORT (when set), the NATS connection state gauge (when the app has NATS),
 * and once the app stops (close or SIGTERM): the metrics server closed and buffered spans sent.
 * Resolves with the metrics port, if any.
 */
export async function instrumentApp(app: INestApplicationContext, opts: InstrumentOptions): Promise<number | undefined> {
  let unwatch: (() => void) | undefined;
  if (opts.nats) unwatch = watchNatsConnection(opts.name, app.get(NatsConnectionState, { strict: false }));
  // (app.get of a provider the app lacks would end the process: Nest aborts on errors of its app proxy)
  const unwatchPool = opts.database ? watchAppDbPool(app.get(DataSource, { strict: false }), opts.name) : undefined;
  const server = opts.metricsPort === undefined ? undefined : await startMetricsServer(opts.metricsPort, opts.host);
  whenAppStops(app, async () => {
    unwatch?.();
    unwatchPool?.();
    if (server) await new Promise((r) => server.close(r));
    await stopTracing();
  });
  if (!server) return undefined;
  const port = listeningPort(server);
  Logger.log(`metrics on http://${opts.host}:${port}/metrics`, 'Metrics');
  return port;
}

/** Reports the pg pool of the app's DataSource (TypeORM's PostgreSQL driver keeps it as `master`) at each scrape. */
function watchAppDbPool(ds: DataSource, name: string): () => void {
  return watchDbPool(name, () => (ds.isInitialized ? (ds.driver as unknown as { master?: PgPoolCounts }).master : undefined));
}
