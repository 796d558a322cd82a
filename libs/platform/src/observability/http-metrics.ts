import type { INestApplication } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { IDEMPOTENCY_REPLAYED_HEADER } from '../idempotency/idempotency';
import { writeAccessLog } from './access-log';
import { exportMetrics, httpRequestDuration, idempotencyReplays } from './metrics';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Label of a request that no route matched (404s, refusals before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** W3C Trace Context Level 2: the trace and the server span a request became, sent back to the caller. */
export const TRACE_RESPONSE_HEADER = 'traceresponse';

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const HEALTH_PATHS = new Set(['/health/live', '/health/ready']);

/** What a request adds to its access-log line beyond what the response tells. */
export interface RequestDetails {
  /** The request id (else the `x-request-id` the answer carries). */
  requestId?: () => string | undefined;
  /** The tenant of the caller, when known. */
  tenant?: () => string | undefined;
}

/**
 * Times one request from now until its answer is sent (or the connection closes) and
 * records it in http_server_request_duration_seconds under the label `route()` gives
 * then; counts a replayed Idempotency-Key answer; writes its access-log line (probes
 * aside); and, when tracing is on, answers the `traceresponse` header naming the server
 * span of this process.
 */
export function observeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  route: () => string,
  details: RequestDetails = {},
): void {
  exportMetrics(httpRequestDuration);
  const start = process.hrtime.bigint();
  // (a request built by hand, as in unit tests, may come without a socket)
  const socket = req.socket as IncomingMessage['socket'] | undefined;
  const written = socket?.bytesWritten ?? 0;
  const traceId = traceOf(req, res);
  let recorded = false;
  const record = () => {
    if (recorded) return;
    recorded = true;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const template = route();
    const method = req.method && METHODS.has(req.method) ? req.method : 'OTHER';
    httpRequestDuration.observe({ method, route: template, status_code: String(res.statusCode) }, seconds);
    if (res.getHeader(IDEMPOTENCY_REPLAYED_HEADER) === 'true') idempotencyReplays.inc({ route: template });
    if (HEALTH_PATHS.has((req.url ?? '').split('?')[0])) return;
    const header = res.getHeader('x-request-id');
    writeAccessLog({
      method,
      route: template,
      status: res.statusCode,
      duration_ms: Math.round(seconds * 1e6) / 1e3,
      bytes: (socket?.bytesWritten ?? 0) - written,
      request_id: details.requestId?.() ?? (typeof header === 'string' ? header : undefined),
      trace_id: traceId,
      tenant: details.tenant?.(),
    });
  };
  res.once('finish', record);
  res.once('close', record);
}

/**
 * The trace id of the request: the active server span's when tracing is on (and its
 * `traceresponse` header is set), else the one of a valid incoming `traceparent`.
 */
function traceOf(req: IncomingMessage, res: ServerResponse): string | undefined {
  const ctx = trace.getActiveSpan()?.spanContext();
  if (ctx && trace.isSpanContextValid(ctx)) {
    const flags = (ctx.traceFlags & 0xff).toString(16).padStart(2, '0');
    res.setHeader(TRACE_RESPONSE_HEADER, `00-${ctx.traceId}-${ctx.spanId}-${flags}`);
    return ctx.traceId;
  }
  const parent = req.headers['traceparent'];
  return typeof parent === 'string' ? TRACEPARENT.exec(parent)?.[1] : undefined;
}

/** The route template express matched (`/api/v1/vault/vault-id/:vaultId`), never the path itself. */
export function routeTemplate(req: Request): string {
  const path: unknown = (req as Request & { route?: { path?: unknown } }).route?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : UNMATCHED_ROUTE;
}

/** The tenant of a service request: the verified caller's, else the route's `:tenantId`. */
export function requestTenant(req: Request): string | undefined {
  const user = (req as Request & { user?: { tenantId?: unknown } }).user;
  if (typeof user?.tenantId === 'string') return user.tenantId;
  const param: unknown = req.params?.['tenantId'];
  return typeof param === 'string' ? param : undefined;
}

/** Records every request of the app by its route template (configureApp and the worker health server). */
export function useHttpMetrics(app: INestApplication): void {
  exportMetrics(httpRequestDuration);
  app.use((req: Request, res: Response, next: NextFunction) => {
    observeRequest(req, res, () => routeTemplate(req), {
      requestId: () => (req as Request & { id?: string }).id,
      tenant: () => requestTenant(req),
    });
    next();
  });
}
