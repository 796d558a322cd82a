import { COMMON_ERRORS } from '@vault/contracts';
import { acceptRequestId, REQUEST_ID_HEADER } from '@vault/platform/http';
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { closingAfterAnswer } from './early-answer';
import { Refusal, writeProblemToSocket } from './problem-response';
import { unsupportedVersion, VERSION_NOT_SUPPORTED } from './request-framing';

/** The version of the request line Node could not parse (`GET / HTTP/2`), if there is one. */
function requestLineVersion(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const line = raw.toString('latin1', 0, Math.min(raw.length, 8_192)).split('\r\n', 1)[0];
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ (HTTP\/\S*)$/.exec(line)?.[1];
}

/** What a request Node could not parse is told, by Node's error code. */
export function clientErrorRefusal(err: Error & { code?: string; rawPacket?: unknown }): Refusal {
  if (err.code === 'HPE_INVALID_VERSION' && unsupportedVersion(requestLineVersion(err.rawPacket) ?? '')) {
    return VERSION_NOT_SUPPORTED;
  }
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
    // An early answer was given and closes the connection: what follows it is dropped unanswered.
    if (closingAfterAnswer(socket)) return;
    if (err.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    writeProblemToSocket(socket, malformed(err), acceptRequestId(undefined));
  });
}
