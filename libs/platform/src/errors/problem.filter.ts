import {
  ArgumentsHost,
  Catch,
  ExceptionFilter,
  HttpException,
  Logger,
} from '@nestjs/common';
import { ERROR_CODES, FieldProblem, PROBLEM_CONTENT_TYPE } from '@vault/contracts';
import type { Request, Response } from 'express';
import { codeForStatus, problemBody } from './problem-body';
import { ProblemException } from './problem.exception';
import { requestIdOf } from '../http/request-id.middleware';

/** Express/body-parser/multer errors carry a status and a type; map the common ones. */
interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  code?: string;
  message?: string;
}

/**
 * The single exception filter: every error leaves as RFC 9457 problem+json.
 * 5xx bodies never carry internals; they are logged with the request id instead.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const res = ctx.getResponse<Response>();
    const req = ctx.getRequest<Request>();
    const requestId = requestIdOf(req);

    let status = 500;
    let code: string = ERROR_CODES.internal;
    let detail = 'An unexpected error occurred.';
    let errors: FieldProblem[] | undefined;
    let headers: Record<string, string> | undefined;
    const database = databaseClientError(exception);

    if (exception instanceof ProblemException) {
      status = exception.getStatus();
      code = exception.code;
      detail = exception.message;
      errors = exception.errors;
      headers = exception.headers;
    } else if (exception instanceof HttpException) {
      status = exception.getStatus();
      code = codeForStatus(status);
      const body = exception.getResponse();
      const message =
        typeof body === 'string' ? body : (body as { message?: unknown }).message;
      detail = Array.isArray(message) ? message.join('; ') : String(message ?? exception.message);
      if (status === 404 && /^Cannot (GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS)/.test(detail)) {
        detail = 'No such resource.';
      }
    } else if (database) {
      [status, code, detail] = database;
    } else if (isHttpish(exception)) {
      status = (exception.status ?? exception.statusCode) as number;
      code = codeForStatus(status);
      detail = describeHttpish(exception, status);
    }

    if (status >= 500) {
      this.logger.error(
        `${req.method} ${req.originalUrl} failed [${requestId}]`,
        exception instanceof Error ? exception.stack : String(exception),
      );
      if (!(exception instanceof ProblemException)) {
        detail = status === 500 ? 'An unexpected error occurred.' : detail;
      }
    }

    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (headers) res.set(headers);
    res
      .status(status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(JSON.stringify(problemBody(status, code, detail, requestId, errors)));
  }
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
function databaseClientError(e: unknown): [number, string, string] | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const driver = (e as { driverError?: { code?: unknown } }).driverError;
  const sqlState = driver?.code ?? (e as { code?: unknown }).code;
  if (typeof sqlState !== 'string' || !/^[0-9A-Z]{5}$/.test(sqlState)) return undefined;
  if (sqlState.startsWith('22')) {
    return [400, ERROR_CODES.validationFailed, 'The request contains a value that cannot be stored.'];
  }
  if (sqlState === '23505') {
    return [409, ERROR_CODES.conflict, 'The request conflicts with an existing resource.'];
  }
  return undefined;
}
