import { ERROR_CODES, ErrorCode } from '@vault/contracts';
import { acceptRequestId, REQUEST_ID_HEADER } from '@vault/platform/http';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { writeProblemToSocket } from './problem-response';

export interface Refusal {
  status: number;
  code: ErrorCode;
  detail: string;
}

/** What a request Node could not parse is told, by Node's error code. */
export function clientErrorRefusal(err: Error & { code?: string }): Refusal {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, code: ERROR_CODES.requestError, detail: 'The request headers are too large.' };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, code: ERROR_CODES.requestError, detail: 'The request was not received in time.' };
  }
  return { status: 400, code: ERROR_CODES.requestError, detail: 'The request is not valid HTTP/1.1.' };
}

/**
 * Answers, with a problem body, what never reaches the request listener:
 * CONNECT (Node emits it apart, and without a listener drops the
 * connection unanswered) and requests Node cannot parse (Node's own answer
 * has no body). `connect` decides CONNECT's answer; `malformed` may replace
 * the refusal of an unparsable request (the plain-HTTP listener says
 * `https_required` to everything).
 */
export function answerUnparsedRequests(
  server: Server,
  connect: Refusal,
  malformed: (err: Error & { code?: string }) => Refusal = clientErrorRefusal,
): void {
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const id = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
    writeProblemToSocket(socket, connect.status, connect.code, connect.detail, id);
  });
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const r = malformed(err);
    writeProblemToSocket(socket, r.status, r.code, r.detail, acceptRequestId(undefined));
  });
}
