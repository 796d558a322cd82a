import { createServer, IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface EchoedRequest {
  upstream: string;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP server standing in for a module. `/echo-body` (or any path
 * with `x-test-echo-body`) streams the request body straight back; `/hang`
 * never answers; a request with
 * `x-test-refuse-early` is answered 413 at once, before its body is read (as
 * records-service refuses an upload above the plan limit); anything else
 * answers JSON describing what arrived (method, path, headers, body), with
 * the status asked for in `x-test-status` (default 200) and the extra headers
 * asked for in `x-test-response-headers` (a JSON object).
 */
export class EchoUpstream {
  readonly hits: EchoedRequest[] = [];
  private server!: Server;
  url = '';

  constructor(readonly name: string) {}

  static async start(name: string): Promise<EchoUpstream> {
    const u = new EchoUpstream(name);
    u.server = createServer((req, res) => {
      if (req.url?.startsWith('/api/v1/echo-body') || req.headers['x-test-echo-body'] !== undefined) {
        u.hits.push({ upstream: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-upstream': name });
        req.pipe(res);
        return;
      }
      if (req.url?.startsWith('/api/v1/hang')) {
        u.hits.push({ upstream: name, method: req.method ?? '', url: req.url, headers: req.headers, body: '' });
        return;
      }
      if (req.headers['x-test-refuse-early'] !== undefined) {
        u.hits.push({ upstream: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
        const problem = JSON.stringify({ status: 413, code: 'payload_too_large', requestId: req.headers['x-request-id'] });
        res.writeHead(413, { 'content-type': 'application/problem+json', connection: 'keep-alive' });
        res.end(problem);
        return;
      }
      void readAll(req).then(
        (body) => {
          const echoed = { upstream: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
          u.hits.push(echoed);
          const asked = req.headers['x-test-response-headers'];
          res.writeHead(Number(req.headers['x-test-status'] ?? 200), {
            'content-type': 'application/json',
            'x-upstream': name,
            connection: 'keep-alive, x-upstream-private',
            'x-upstream-private': 'hop',
            ...(typeof asked === 'string' ? (JSON.parse(asked) as Record<string, string>) : {}),
          });
          res.end(JSON.stringify(echoed));
        },
        () => res.destroy(),
      );
    });
    await new Promise<void>((r) => u.server.listen(0, '127.0.0.1', r));
    u.url = `http://127.0.0.1:${(u.server.address() as AddressInfo).port}`;
    return u;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A loopback port nothing listens on. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}
