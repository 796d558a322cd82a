import type { Logger } from '@nestjs/common';
import { ERROR_CODES, ErrorCode, FieldProblem, PROBLEM_CONTENT_TYPE } from '@vault/contracts';
import { codeForStatus, ProblemException, problemBody } from '@vault/platform/errors';
import { requestIdOf } from '@vault/platform/http';
import type { Request, Response } from 'express';
import type { TusCall } from './tus-calls';
import { TUS_VERSION } from './tus-preconditions';

/**
 * The problem bodies of the resumable upload routes, all made here: a refusal of ours (a
 * ProblemException), a refusal @tus/server made itself (a status and a short text, as
 * thrown to `onResponseError` or as written on the response), and any other failure (500).
 */

/** The text of a problem body. */
const bodyText = (status: number, code: ErrorCode, detail: string, requestId?: string, errors?: FieldProblem[]) =>
  JSON.stringify(problemBody(status, code, detail, requestId, errors));

/** A refusal tus made itself, with its text as the detail. */
const tusRefusal = (status: number, text: string, requestId?: string) =>
  bodyText(status, codeForStatus(status), text.trim() || 'The upload request is refused.', requestId);

/**
 * What @tus/server answers for an error of a request (its `onResponseError`): our problems
 * as they are (their headers set on the response), tus's own refusals under 500 with their
 * text, anything else a logged 500 without internals. Marks the call's answer a problem.
 */
export function problemOf(
  err: Error | { status_code: number; body: string },
  call: TusCall | undefined,
  log: Logger,
): { status_code: number; body: string } {
  const requestId = call ? requestIdOf(call.req) : undefined;
  if (call) call.problem = true;
  if (err instanceof ProblemException) {
    for (const [name, value] of Object.entries(err.headers ?? {})) call?.res.setHeader(name, value);
    const status = err.getStatus();
    return { status_code: status, body: bodyText(status, err.code, err.message, requestId, err.errors) };
  }
  if ('status_code' in err && typeof err.status_code === 'number' && err.status_code < 500) {
    return { status_code: err.status_code, body: tusRefusal(err.status_code, err.body, requestId) };
  }
  log.error(
    `tus ${call?.req.method ?? ''} failed [${requestId ?? ''}]`,
    err instanceof Error ? err.stack : `@tus/server answered ${err.status_code}: ${err.body.trim()}`,
  );
  return { status_code: 500, body: bodyText(500, ERROR_CODES.internal, 'An unexpected error occurred.', requestId) };
}

/**
 * Answers a refusal made before @tus/server takes the request (tus-preconditions): the
 * problem body with its headers and Tus-Resumable, and a log line saying what was refused.
 */
export function sendRefusal(req: Request, res: Response, err: ProblemException, log: Logger): void {
  const requestId = requestIdOf(req);
  const status = err.getStatus();
  const fields = (err.errors ?? []).map((e) => `${e.field}: ${e.message}`).join('; ');
  log.warn(`tus ${req.method} refused ${status} [${requestId ?? ''}]: ${err.message}${fields ? ` (${fields})` : ''}`);
  // an explicit head: a held answer (Idempotency-Key) sends the head it was given
  res.writeHead(status, { ...err.headers, 'Tus-Resumable': TUS_VERSION, 'Content-Type': PROBLEM_CONTENT_TYPE });
  res.end(bodyText(status, err.code, err.message, requestId, err.errors));
}

/** Raw header pairs (name, value, name, value...) without Content-Type and Content-Length. */
function withoutBodyHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!/^content-(type|length)$/i.test(raw[i])) out.push(raw[i], raw[i + 1]);
  }
  return out;
}

/**
 * Makes every refusal the tus server writes on `res` a problem body of the platform:
 * one it built from our problem (`isProblem()`) gets the problem media type; one of
 * its own (412 without Tus-Resumable, 400 for a malformed tus header...) has its text
 * turned into a problem body with the request id.
 */
export function problemAnswers(res: Response, isProblem: () => boolean, requestId: string | undefined): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  let plain: { status: number; text: string } | undefined;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (status < 400) return writeHead(status, ...rest);
    if (!isProblem()) plain = { status, text: '' };
    res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
    const args = rest.map((a) => (Array.isArray(a) ? withoutBodyHeaders(a as string[]) : a));
    return writeHead(status, ...args);
  }) as Response['writeHead'];
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!plain) return write(chunk, ...rest);
    plain.text += Buffer.isBuffer(chunk) || chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : String(chunk);
    return true;
  }) as Response['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (!plain) return end(chunk, ...rest);
    if (chunk !== undefined && typeof chunk !== 'function') res.write(chunk);
    return end(tusRefusal(plain.status, plain.text, requestId));
  }) as Response['end'];
}
