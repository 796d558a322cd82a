import { COMMON_ERRORS } from '@vault/contracts';
import { acceptRequestId, REQUEST_ID_HEADER } from '@vault/platform/http';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { Refusal, writeProblemToSocket } from './problem-response';

/** What a request Node could not parse is told, by Node's error code. */
export function clientErrorRefusal(err: Error & { code?: string }): Refusal {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { entry: COMMON_ERRORS.requestError, status: 431, detail: 'The request headers are too large.' };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { entry: COMMON_ERRORS.requestError, status: 408, detail: 'The request was not received in time.' };
  }
  return { entry: COMMON_ERRORS.requestError, status: 400, detail: 'The request is not valid HTTP/1.1.' };
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
    writeProblemToSocket(socket, connect, id);
  });
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    if (err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    writeProblemToSocket(socket, malformed(err), acceptRequestId(undefined));
  });
}
