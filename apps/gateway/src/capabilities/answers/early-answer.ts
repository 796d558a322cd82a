import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long a connection answered early keeps reading (and discarding) what
 * the client still sends after the answer, before it is cut.
 */
export const LINGER_MS = 2_000;

/** Connections an early answer closes: what the client still sends there is dropped, never answered. */
const closing = new WeakSet<Socket>();

/** True once an early answer was given on `socket` and will close it (see closeAfterAnswer). */
export function closingAfterAnswer(socket: Socket): boolean {
  return closing.has(socket);
}

/** True when the request carries a body (a declared length above zero, or chunked). */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** True while the request body has not been received to its end. */
export function bodyPending(req: IncomingMessage): boolean {
  return hasBody(req.headers) && !req.complete;
}

/**
 * Makes `res` an answer that ends its connection: `Connection: close` is
 * sent, and once the answer is written the connection closes (Node does so
 * for a `close` answer). Used for every answer given before the request body
 * was received to its end: the rest of the body is then neither forwarded,
 * nor parsed as a next request, nor waited for; a keep-alive client opens a
 * new connection for its next request instead of waiting on this one.
 *
 * The close lingers: the sending side is shut at once, the body bytes still
 * arriving are read and dropped until the client closes its side or
 * `lingerMs` passes. Closing with unread bytes would send a TCP reset, which
 * can make the client lose the answer before reading it.
 */
export function closeAfterAnswer(res: ServerResponse, lingerMs = LINGER_MS): void {
  const { req } = res;
  res.setHeader('connection', 'close');
  const socket = req.socket;
  closing.add(socket);
  // Node's server calls destroySoon() on the socket after a `Connection: close` answer.
  socket.destroySoon = () => lingeringClose(socket, lingerMs);
  res.once('finish', () => {
    // Whatever still reads the body (a pipe to a module) stops; the rest is dropped.
    req.unpipe();
    req.resume();
  });
}

function lingeringClose(socket: Socket, lingerMs: number): void {
  const cut = setTimeout(() => socket.destroy(), lingerMs);
  socket.once('close', () => clearTimeout(cut));
  socket.once('end', () => socket.destroy());
  socket.once('error', () => socket.destroy());
  socket.end();
  socket.resume();
}
