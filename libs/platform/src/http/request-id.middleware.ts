import { INestApplication, Injectable, NestMiddleware } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { ProblemFilterHooks } from '../errors/problem.filter';

export const REQUEST_ID_HEADER = 'x-request-id';
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Returns the caller's request id when it is safe to echo, a new one otherwise. */
export function acceptRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && SAFE_ID.test(value) ? value : randomUUID();
}

export function requestIdOf(req: Request): string | undefined {
  return (req as Request & { id?: string }).id;
}

/** Hands the problem filter each request's id (for the problem body and its log line). */
export const requestIdProblemHooks: ProblemFilterHooks = { requestIdOf };

/** Adopts or creates the request id, exposes it on the request and echoes it in the response. */
@Injectable()
export class RequestIdMiddleware implements NestMiddleware {
  use(req: Request, res: Response, next: NextFunction): void {
    const id = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
    (req as Request & { id?: string }).id = id;
    req.headers[REQUEST_ID_HEADER] = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  }
}

/**
 * Runs the request-id middleware ahead of everything the app routes, so that every
 * answer has its id: unknown paths outside the API prefix and refusals of the
 * body reader included. Called before the app initialises (runService, bootTestApp).
 */
export function useRequestIds(app: INestApplication): void {
  const middleware = new RequestIdMiddleware();
  app.use((req: Request, res: Response, next: NextFunction) => middleware.use(req, res, next));
  withRequestIds.add(app.getHttpAdapter().getInstance() as object);
}

/** The HTTP servers (Express apps) whose every request already gets its id from useRequestIds. */
const withRequestIds = new WeakSet<object>();

/** True when useRequestIds ran on this HTTP server (Express app): the module's own middleware would repeat it. */
export function hasRequestIds(server: unknown): boolean {
  return typeof server === 'object' && server !== null && withRequestIds.has(server);
}
