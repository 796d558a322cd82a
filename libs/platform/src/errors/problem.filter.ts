import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, Logger, Optional } from '@nestjs/common';
import { ERROR_CODES, ErrorCode, FieldProblem, PROBLEM_CONTENT_TYPE } from '@vault/contracts';
import {
  ClosedConnectionError,
  ConnectionError,
  DrainingConnectionError,
  NoRespondersError,
  RequestError,
  TimeoutError,
} from '@nats-io/nats-core';
import type { Request, Response } from 'express';
import { codeForStatus, problemBody } from './problem-body';
import { ProblemException } from './problem.exception';
import { sqlStateOf, uniqueViolationConstraint } from './unique-violation';

/** Seconds a client is told to wait (`Retry-After`) when a dependency is down. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/** Express/body-parser/multer errors carry a status and a type; map the common ones. */
interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  code?: string;
  message?: string;
}

/** A problem answer as it is sent: its status, headers (Content-Type included) and body text. */
export interface ProblemAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What a layer above errors adds to the filter, which imports none of them: the app's
 * root module provides them under PROBLEM_FILTER_HOOKS (PlatformModule registers the
 * request ids of http/ and the replays and settlements of idempotency/).
 */
export interface ProblemFilterHooks {
  /** The request's id, for the problem body and the log line. */
  requestIdOf?(req: Request): string | undefined;
  /** Answers `exception` itself instead of a problem body (true when it did); only before anything was sent. */
  answers?(exception: unknown, req: Request, res: Response): boolean;
  /** Sees the problem answer before it is sent, which waits for the promise returned (settled either way). */
  beforeSend?(req: Request, answer: ProblemAnswer): Promise<void> | undefined;
}

/** The injection token of the ProblemFilterHooks[] the filter uses. */
export const PROBLEM_FILTER_HOOKS = Symbol('vault:problem-filter-hooks');

/**
 * The single exception filter: every error leaves as RFC 9457 problem+json.
 * 5xx bodies never carry internals; they are logged with the request id instead.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  constructor(@Optional() @Inject(PROBLEM_FILTER_HOOKS) private readonly hooks: ProblemFilterHooks[] = []) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    const requestId = this.requestIdOf(req);
    if (!res.headersSent && this.hooks.some((h) => h.answers?.(exception, req, res))) return;

    const problem = problemOf(exception);
    if (problem.status >= 500) {
      this.logger.error(
        `${req.method} ${req.originalUrl} failed [${requestId}]`,
        exception instanceof Error ? exception.stack : String(exception),
      );
      if (!(exception instanceof ProblemException) && problem.status === 500) {
        problem.detail = 'An unexpected error occurred.';
      }
    }

    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.send(req, res, problem, requestId);
  }

  /** Sends the problem, once what the hooks do before (beforeSend) has settled. */
  private send(req: Request, res: Response, problem: Problem, requestId: string | undefined): void {
    const { status, code, detail, errors, headers } = problem;
    const body = JSON.stringify(problemBody(status, code, detail, requestId, errors));
    // with its charset, as Express sends a text body: a stored answer is what was sent
    const contentType = `${PROBLEM_CONTENT_TYPE}; charset=utf-8`;
    const send = () => {
      if (headers) res.set(headers);
      res.status(status).type(contentType).send(body);
    };
    // e.g. a failed idempotent request: its key is stored with this answer or released first
    const answer = { status, headers: { ...headers, 'content-type': contentType }, body };
    const pending = this.hooks.map((h) => h.beforeSend?.(req, answer)).filter((p) => p !== undefined);
    if (pending.length === 0) return send();
    void Promise.all(pending).then(send, send);
  }

  private requestIdOf(req: Request): string | undefined {
    for (const hook of this.hooks) {
      const id = hook.requestIdOf?.(req);
      if (id !== undefined) return id;
    }
    return undefined;
  }
}

/** What a problem answer says: status, code, detail, and the field problems and headers it may carry. */
interface Problem {
  status: number;
  code: ErrorCode;
  detail: string;
  errors?: FieldProblem[];
  headers?: Record<string, string>;
}

/** The problem an exception is, by its kind (an unknown one is a 500). */
function problemOf(exception: unknown): Problem {
  if (exception instanceof ProblemException) {
    const { code, message: detail, errors, headers } = exception;
    return { status: exception.getStatus(), code, detail, errors, headers };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const body = exception.getResponse();
    const message = typeof body === 'string' ? body : (body as { message?: unknown }).message;
    let detail = Array.isArray(message) ? message.join('; ') : String(message ?? exception.message);
    if (status === 404 && /^Cannot (GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)/.test(detail)) {
      detail = 'No such resource.';
    }
    return { status, code: codeForStatus(status), detail };
  }
  const database = databaseClientError(exception);
  if (database) {
    const [status, code, detail] = database;
    return { status, code, detail };
  }
  if (isDependencyDown(exception)) {
    return {
      status: 503,
      code: ERROR_CODES.serviceUnavailable,
      detail: 'A service this request needs is unavailable; retry later.',
      headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
    };
  }
  if (isHttpish(exception)) {
    const status = (exception.status ?? exception.statusCode) as number;
    return { status, code: codeForStatus(status), detail: describeHttpish(exception, status) };
  }
  return { status: 500, code: ERROR_CODES.internal, detail: 'An unexpected error occurred.' };
}

function isHttpish(e: unknown): e is HttpishError {
  if (typeof e !== 'object' || e === null) return false;
  const s = (e as HttpishError).status ?? (e as HttpishError).statusCode;
  return typeof s === 'number' && s >= 400 && s < 600;
}

function describeHttpish(e: HttpishError, status: number): string {
  if (e.type === 'entity.parse.failed') return 'The request body is not valid JSON.';
  if (e.type === 'entity.too.large') return 'The request body is too large.';
  if (status >= 500) return 'An unexpected error occurred.';
  return e.message ?? 'The request could not be processed.';
}

/**
 * Backstop for input the services did not refuse themselves: PostgreSQL data
 * exceptions (class 22: NUL characters, out-of-range numbers, malformed values)
 * are the caller's fault (400), unique violations (23505) a conflict (409).
 */
function databaseClientError(e: unknown): [number, ErrorCode, string] | undefined {
  const sqlState = sqlStateOf(e);
  if (sqlState?.startsWith('22')) {
    return [400, ERROR_CODES.validationFailed, 'The request contains a value that cannot be stored.'];
  }
  if (uniqueViolationConstraint(e) !== undefined) {
    return [409, ERROR_CODES.conflict, 'The request conflicts with an existing resource.'];
  }
  return undefined;
}

/** SQLSTATEs of a lost or refused database connection: class 08, shutdowns, too many connections. */
const DATABASE_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;
/** Socket errors of a peer that cannot be reached. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
/** node-postgres and its pool report lost connections and connect timeouts as plain errors. */
const DATABASE_CONNECTION_LOST =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i;

/**
 * A dependency (PostgreSQL, NATS, another service) that is down or unreachable:
 * the request may succeed later, so it is a 503 with Retry-After, not a 500.
 */
function isDependencyDown(e: unknown): boolean {
  if (
    e instanceof TimeoutError ||
    e instanceof ConnectionError ||
    e instanceof ClosedConnectionError ||
    e instanceof DrainingConnectionError ||
    e instanceof NoRespondersError ||
    e instanceof RequestError
  ) {
    return true;
  }
  if (typeof e !== 'object' || e === null) return false;
  const driver = (e as { driverError?: { code?: unknown; message?: unknown } }).driverError;
  const code = driver?.code ?? (e as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
  const sqlState = sqlStateOf(e);
  if (sqlState !== undefined) return DATABASE_UNAVAILABLE.test(sqlState);
  const message = driver?.message ?? (e as { message?: unknown }).message;
  return typeof message === 'string' && DATABASE_CONNECTION_LOST.test(message);
}
