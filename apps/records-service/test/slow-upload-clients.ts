import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import type { Caller } from './support';

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface SlowPatch {
  /** Settles with the answer once the service answers (never, while it keeps reading). */
  answer: Promise<Answer>;
  /** Whether the service answered already. */
  answered: () => boolean;
  /** Stops sending and drops the connection. */
  stop: () => void;
}

export interface SlowPatchOptions {
  /** Bytes the chunk announces (Content-Length); the client never sends them all unless it finishes. */
  length: number;
  /** Bytes sent at once right away (default none). */
  first?: number;
  /** Then this many bytes every `everyMs` (0: nothing more: a stalled body). */
  trickle: number;
  everyMs: number;
}

/**
 * A PATCH whose body comes slowly (a bounded rate, or a stall after its first bytes), sent on
 * a connection of its own straight to the service; `path` is the upload's URL path.
 */
export function slowPatch(app: INestApplication, c: Caller, path: string, o: SlowPatchOptions): SlowPatch {
  const port = (app.getHttpServer().address() as AddressInfo).port;
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    path,
    method: 'PATCH',
    agent: false,
    headers: {
      Authorization: `Bearer ${c.token}`,
      'Tus-Resumable': '1.0.0',
      'Upload-Offset': '0',
      'Content-Type': 'application/offset+octet-stream',
      'Content-Length': String(o.length),
    },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('end', () => {
        done = true;
        clearInterval(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
  });
  answer.catch(() => undefined);
  req.flushHeaders();
  let sent = 0;
  const send = (n: number) => {
    const size = Math.min(n, o.length - sent);
    if (size <= 0 || done) return;
    sent += size;
    req.write(Buffer.alloc(size, 7));
  };
  send(o.first ?? 0);
  if (o.trickle > 0) timer = setInterval(() => send(o.trickle), o.everyMs);
  return {
    answer,
    answered: () => done,
    stop: () => {
      clearInterval(timer);
      req.destroy();
    },
  };
}
