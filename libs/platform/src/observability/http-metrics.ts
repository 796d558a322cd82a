import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { IDEMPOTENCY_REPLAYED_HEADER } from '../idempotency/idempotency';
import { httpRequestDuration, idempotencyReplays } from './metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Label of a request that no route matched (404s, refusals before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times one request from now until its answer is sent (or the connection closes) and
 * records it in http_server_request_duration_seconds under the label `route()` gives
 * then; counts a replayed Idempotency-Key answer.
 */
export function observeRequest(req: IncomingMessage, res: ServerResponse, route: () => string): void {
  const start = process.hrtime.bigint();
  let recorded = false;
  const record = () => {
    if (recorded) return;
    recorded = true;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const template = route();
    const method = req.method && METHODS.has(req.method) ? req.method : 'OTHER';
    httpRequestDuration.observe({ method, route: template, status_code: String(res.statusCode) }, seconds);
    if (res.getHeader(IDEMPOTENCY_REPLAYED_HEADER) === 'true') idempotencyReplays.inc({ route: template });
  };
  res.once('finish', record);
  res.once('close', record);
}

/** The route template express matched (`/api/v1/vault/vault-id/:vaultId`), never the path itself. */
export function routeTemplate(req: Request): string {
  const path: unknown = (req as Request & { route?: { path?: unknown } }).route?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : UNMATCHED_ROUTE;
}

/** Records every request of the app by its route template (configureApp and the worker health server). */
export function useHttpMetrics(app: INestApplication): void {
  app.use((req: Request, res: Response, next: NextFunction) => {
    observeRequest(req, res, () => routeTemplate(req));
    next();
  });
}
