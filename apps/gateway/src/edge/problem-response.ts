import type { ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE } from '@vault/contracts';
import { problemBody, REQUEST_ID_HEADER } from '@vault/platform';

export interface ProblemOptions {
  headers?: Record<string, string>;
  /**
   * Close the connection after answering: used when the request body was not
   * read, so it is never parsed as a next request nor drained at length.
   */
  close?: boolean;
}

/** Answers with the platform's problem+json body, written by the gateway itself. */
export function sendProblem(
  res: ServerResponse,
  status: number,
  code: string,
  detail: string,
  requestId: string,
  options: ProblemOptions = {},
): void {
  const body = JSON.stringify(problemBody(status, code, detail, requestId));
  res.writeHead(status, {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    [REQUEST_ID_HEADER]: requestId,
    ...(options.close ? { connection: 'close' } : {}),
    ...options.headers,
  });
  res.end(body);
}
