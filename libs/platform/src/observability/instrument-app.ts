import { INestApplicationContext, Logger } from '@nestjs/common';
import { NatsConnectionState } from '../nats/nats-connection-state';
import { watchNatsConnection } from './metrics';
import { listeningPort, startMetricsServer, whenAppStops } from './metrics-server';
import { stopTracing } from './tracing';

export interface InstrumentOptions {
  /** Process name: the label of its NATS connection state. */
  name: string;
  /** METRICS_PORT: a /metrics-only server on this port; undefined: none. */
  metricsPort?: number;
  host: string;
  /** The app has the platform's NATS connection (services and workers, not the gateway). */
  nats: boolean;
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
  const server = opts.metricsPort === undefined ? undefined : await startMetricsServer(opts.metricsPort, opts.host);
  whenAppStops(app, async () => {
    unwatch?.();
    if (server) await new Promise((r) => server.close(r));
    await stopTracing();
  });
  if (!server) return undefined;
  const port = listeningPort(server);
  Logger.log(`metrics on http://${opts.host}:${port}/metrics`, 'Metrics');
  return port;
}
