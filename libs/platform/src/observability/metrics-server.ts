import type { INestApplicationContext } from '@nestjs/common';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { renderMetrics } from './metrics';

export const METRICS_PATH = '/metrics';

/**
 * Answers GET/HEAD /metrics with the registry in the Prometheus text format; anything
 * else is a 404 (405 for another method on /metrics). Used by the metrics server and
 * mounted on the worker health server.
 */
export function serveMetrics(req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  if (path !== METRICS_PATH) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method Not Allowed\n');
    return;
  }
  renderMetrics().then(
    ({ contentType, body }) => {
      res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
    (err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics collection failed: ${String(err)}\n`);
    },
  );
}

/** Express middleware serving /metrics (the worker health server) and passing everything else on. */
export function metricsMiddleware(req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, next: () => void): void {
  if ((req.originalUrl ?? req.url ?? '').split('?')[0] === METRICS_PATH) serveMetrics(req, res);
  else next();
}

/**
 * Listens on `port` (METRICS_PORT) with a server that only serves /metrics: apart from
 * the app's own port, so no public route (the gateway forwards every path to the
 * services' app port) can ever reach it. Resolves with the server once it listens.
 */
export function startMetricsServer(port: number, host: string): Promise<Server> {
  const server = createServer(serveMetrics);
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The port a listening server got (the real one when asked for port 0). */
export function listeningPort(server: Server): number {
  return (server.address() as AddressInfo).port;
}

/**
 * Runs `task` once the app has stopped its HTTP server, both on `app.close()` and on the
 * SIGTERM/SIGINT of enableShutdownHooks (which ends the process without `close()`): Nest
 * calls its `dispose()` step in both, before the shutdown hooks drain NATS and the database.
 */
export function whenAppStops(app: INestApplicationContext, task: () => Promise<unknown> | void): void {
  // NestFactory hands out a proxy that ignores assignments: define the step on the app
  // itself (defineProperty reaches the target) around the class's own `dispose`.
  let proto: object | null = Object.getPrototypeOf(app);
  while (proto && !Object.prototype.hasOwnProperty.call(proto, 'dispose')) proto = Object.getPrototypeOf(proto);
  const dispose = proto && (proto as { dispose?: () => Promise<void> }).dispose;
  if (typeof dispose !== 'function') throw new Error('the Nest application has no dispose step to follow');
  let done = false;
  Object.defineProperty(app, 'dispose', {
    configurable: true,
    writable: true,
    value: async function (this: unknown) {
      await dispose.call(this);
      if (done) return;
      done = true;
      await Promise.resolve()
        .then(task)
        .catch(() => undefined);
    },
  });
}
