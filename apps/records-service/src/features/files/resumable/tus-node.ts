import type { IncomingMessage } from 'node:http';
import { finished } from 'node:stream';
import type { Request, Response } from 'express';

/** Bytes of a request body queued for @tus/server before the socket is paused. */
const QUEUED_BYTES = 1 << 20;

/**
 * The request @tus/server's `handleWeb` takes, made from express's: method, URL, headers
 * and a body stream that hands on the socket's buffers as they are. (`Server.handle`
 * goes through srvx, whose `Readable.toWeb` copies every chunk to detach it from Node's
 * buffer pool; tus reads the body once with `Readable.fromWeb` and neither keeps nor
 * transfers a chunk, so the copy buys nothing.) `runtime.node` lets tus end its work on
 * a request error, as under `Server.handle`. The URL's host is a placeholder: the
 * Location tus answers is relative and the upload id comes from the path.
 */
export function tusRequest(req: Request, res: Response, floor?: BodyRateFloor): globalThis.Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i], raw[i + 1]);
    } catch {
      // a header the Fetch API refuses is none of tus's (they are validated by tus)
    }
  }
  let body: ReadableStream<Uint8Array> | null | undefined;
  const method = req.method;
  return {
    method,
    url: req.url.startsWith('/') ? `http://localhost${req.url}` : req.url,
    headers,
    get body() {
      body ??= method === 'GET' || method === 'HEAD' ? null : bodyOf(req, floor);
      return body;
    },
    runtime: { name: 'node', node: { req, res } },
  } as unknown as globalThis.Request;
}

/**
 * A minimum body rate: a body whose bytes arrive slower than `bytesPerSecond` over a whole
 * window of `windowMs` ends there, as if complete (tus keeps what arrived), and `tooSlow`
 * is called. A window in which the body waited for us (storage slower than the client) is
 * not held against it.
 */
export interface BodyRateFloor {
  bytesPerSecond: number;
  windowMs: number;
  tooSlow: () => void;
}

/** The request's bytes as a web stream, without a copy; the socket pauses while QUEUED_BYTES wait. */
function bodyOf(req: IncomingMessage, floor?: BodyRateFloor): ReadableStream<Uint8Array> {
  let settled = false;
  let received = 0;
  let heldBack = false;
  let watch: NodeJS.Timeout | undefined;
  const settle = () => {
    settled = true;
    clearInterval(watch);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk: Buffer) => {
          if (settled) return;
          received += chunk.length;
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 1) <= 0) {
            heldBack = true;
            req.pause();
          }
        });
        finished(req, (err) => {
          if (settled) return;
          settle();
          if (err) controller.error(err);
          else controller.close();
        });
        if (!floor || floor.bytesPerSecond <= 0) return;
        watch = setInterval(() => {
          const enough = received >= (floor.bytesPerSecond * floor.windowMs) / 1000;
          const judged = !heldBack && !req.isPaused();
          received = 0;
          heldBack = req.isPaused();
          if (enough || !judged || settled) return;
          settle();
          req.pause();
          controller.close();
          floor.tooSlow();
        }, floor.windowMs);
        watch.unref();
      },
      pull() {
        req.resume();
      },
      cancel(reason) {
        settle();
        req.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: QUEUED_BYTES }),
  );
}

/** Writes tus's answer on express's response (status, headers, its short text body). */
export async function sendTusAnswer(res: Response, answer: globalThis.Response): Promise<void> {
  const rawHeaders: string[] = [];
  answer.headers.forEach((value, name) => rawHeaders.push(name, value));
  const text = answer.body ? await answer.text() : '';
  if (res.headersSent || res.destroyed) return;
  res.writeHead(answer.status, rawHeaders);
  res.end(text);
}
