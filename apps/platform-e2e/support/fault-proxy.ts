import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';

/** What the proxy does with one request. */
export type Fault =
  /** Forward it, let the platform answer (and commit), then cut the client's connection without the answer. */
  | { kind: 'drop-after-commit' }
  /** Answer it without forwarding. */
  | { kind: 'answer'; status: number; headers?: Record<string, string> }
  /** Forward it as usual (a place in a plan). */
  | { kind: 'forward' }
  /** Never forward nor answer it: the client waits until it gives up (or the proxy closes). */
  | { kind: 'hold' }
  /**
   * Forward it, pass on the answer's head and the first `bytes` of its body, then `cut` the
   * client's connection or `stall` (keep it open, sending nothing more): a download broken mid-file.
   */
  | { kind: 'truncate'; bytes: number; then: 'cut' | 'stall' };

/** One request the proxy saw. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** ms since the proxy started (performance clock). */
  at: number;
  fault?: Fault['kind'];
  /** The platform's status, when the request was forwarded. */
  upstreamStatus?: number;
  upstreamHeaders?: IncomingMessage['headers'];
}

export interface FaultProxy {
  port: number;
  seen: Seen[];
  /** Faults for the next requests matching `method path` (path without query), in order. */
  plan(method: string, path: string | RegExp, faults: Fault[]): void;
  close(): Promise<void>;
}

/**
 * A plain-HTTP proxy in front of the gateway's HTTPS port that can misbehave on purpose. The
 * client calls `http://<module>-api.<domain>:<proxy port>/…`; the proxy forwards to the gateway
 * with the same module host (the gateway's port in the Host header) and records every request.
 */
export async function startFaultProxy(gatewayPort: number): Promise<FaultProxy> {
  const seen: Seen[] = [];
  const plans: { method: string; path: string | RegExp; faults: Fault[] }[] = [];
  const started = performance.now();
  const takeFault = (method: string, path: string): Fault | undefined => {
    const plan = plans.find(
      (p) => p.method === method && p.faults.length > 0 && (typeof p.path === 'string' ? p.path === path : p.path.test(path)),
    );
    return plan?.faults.shift();
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const fault = takeFault(req.method ?? 'GET', path);
    const entry: Seen = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      at: performance.now() - started,
      fault: fault?.kind,
    };
    seen.push(entry);
    if (fault?.kind === 'hold') return;
    if (fault?.kind === 'answer') {
      req.resume();
      res.writeHead(fault.status, { 'content-type': 'application/problem+json', ...fault.headers });
      res.end(
        JSON.stringify({
          status: fault.status,
          code: fault.status === 429 ? 'too_many_requests' : 'service_unavailable',
          title: 'from the fault proxy',
        }),
      );
      return;
    }
    forward(req, res, gatewayPort, entry, fault);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    plan: (method, path, faults) => plans.push({ method, path, faults: [...faults] }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function forward(req: IncomingMessage, res: ServerResponse, gatewayPort: number, entry: Seen, fault: Fault | undefined): void {
  const hostName = (req.headers.host ?? '').replace(/:\d+$/, '');
  const upstream = httpsRequest(
    {
      host: '127.0.0.1',
      port: gatewayPort,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: `${hostName}:${gatewayPort}` },
      servername: hostName,
      rejectUnauthorized: false,
    },
    (answer) => {
      entry.upstreamStatus = answer.statusCode;
      entry.upstreamHeaders = answer.headers;
      if (fault?.kind === 'drop-after-commit') {
        // The platform answered, so it has committed: read the answer to its end, then cut the client off.
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (fault?.kind === 'truncate') return truncate(answer, res, req, fault);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => req.socket.destroy());
  req.pipe(upstream);
}

/** Sends the first `bytes` of the answer's body, then cuts the client's connection or stalls it. */
function truncate(
  answer: IncomingMessage,
  res: ServerResponse,
  req: IncomingMessage,
  fault: Extract<Fault, { kind: 'truncate' }>,
) {
  let left = fault.bytes;
  answer.on('data', (chunk: Buffer) => {
    if (left <= 0) return;
    const part = chunk.subarray(0, left);
    left -= part.length;
    if (left > 0) {
      res.write(part);
      return;
    }
    // The rest of the answer is read and dropped (destroying it would reset the client's connection at once).
    if (fault.then === 'stall') {
      res.write(part);
      return;
    }
    // Once the bytes are handed to the socket, it is ended: they reach the client, then the connection goes.
    res.write(part, () => req.socket.end());
  });
}
