import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { COMMON_ERRORS, ErrorCode, ErrorEntry, PROBLEM_CONTENT_TYPE } from '@vault/contracts';
import { problemBody } from '@vault/platform/errors';
import { REQUEST_ID_HEADER } from '@vault/platform/http';
import { closeAfterAnswer, LINGER_MS } from './early-answer';
import { withSecurityHeaders } from './security-headers';

/** A code of the catalogue (COMMON_ERRORS, GATEWAY_ERRORS) with the status it is sent with. */
export type CatalogueEntry = ErrorEntry & { readonly code: ErrorCode };

/**
 * A problem the gateway answers on its own: the catalogue entry, whose status is the one
 * sent, and the detail of this occurrence. `request_error` alone stands for several 4xx
 * statuses (431, 408, 400) and names the one it is sent with.
 */
export type Refusal =
  | { entry: CatalogueEntry; detail: string; status?: never }
  | { entry: typeof COMMON_ERRORS.requestError; detail: string; status: number };

const statusOf = (refusal: Refusal): number => refusal.status ?? refusal.entry.status;

export interface ProblemOptions {
  headers?: Record<string, string>;
  /**
   * Close the connection after answering (`closeAfterAnswer`): used when the
   * request body was not received to its end, so it is never parsed as a
   * next request nor waited for.
   */
  close?: boolean;
}

/** A problem answer of the gateway: its problem+json body and every header it carries. */
function problem(
  refusal: Refusal,
  requestId: string,
  tls: boolean,
  extra: Record<string, string> = {},
): { body: string; headers: OutgoingHttpHeaders } {
  const status = statusOf(refusal);
  const body = JSON.stringify(problemBody(status, refusal.entry.code, refusal.detail, requestId));
  const headers = {
    'content-type': PROBLEM_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    [REQUEST_ID_HEADER]: requestId,
    ...extra,
  };
  return { body, headers: withSecurityHeaders(headers, status, tls) };
}

/** Answers with the platform's problem+json body, written by the gateway itself. */
export function sendProblem(res: ServerResponse, refusal: Refusal, requestId: string, options: ProblemOptions = {}): void {
  const { body, headers } = problem(refusal, requestId, res.req.socket instanceof TLSSocket, options.headers);
  if (options.close) closeAfterAnswer(res);
  res.writeHead(statusOf(refusal), headers);
  res.end(body);
}

/**
 * Answers a problem straight on the socket and closes it: for what never
 * becomes a request/response pair (CONNECT, a request Node could not parse).
 * Nothing is written when the socket already carries (part of) an answer.
 */
export function writeProblemToSocket(socket: Socket, refusal: Refusal, requestId: string): void {
  const answered = (socket as Socket & { _httpMessage?: unknown })._httpMessage;
  if (!socket.writable || (answered !== undefined && answered !== null)) {
    socket.destroy();
    return;
  }
  const status = statusOf(refusal);
  const { body, headers } = problem(refusal, requestId, socket instanceof TLSSocket, { connection: 'close' });
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${String(value)}`);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  // Whatever the client still sends is dropped; the socket goes once the client closes, or after the linger time.
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}
