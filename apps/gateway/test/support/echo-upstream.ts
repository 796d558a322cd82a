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
 * A real HTTP server standing in for a module. `/echo-body` streams the
 * request body straight back; `/hang` never answers; anything else answers
 * JSON describing what arrived (method, path, headers, body).
 */
export class EchoUpstream {
  readonly hits: EchoedRequest[] = [];
  private server!: Server;
  url = '';

  constructor(readonly name: string) {}

  static async start(name: string): Promise<EchoUpstream> {
    const u = new EchoUpstream(name);
    u.server = createServer((req, res) => {
      if (req.url?.startsWith('/api/v1/echo-body')) {
        u.hits.push({ upstream: name, method: req.method ?? '', url: req.url, headers: req.headers, body: '' });
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-upstream': name });
        req.pipe(res);
        return;
      }
      if (req.url?.startsWith('/api/v1/hang')) {
        u.hits.push({ upstream: name, method: req.method ?? '', url: req.url, headers: req.headers, body: '' });
        return;
      }
      void readAll(req).then((body) => {
        const echoed = { upstream: name, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        u.hits.push(echoed);
        res.writeHead(200, {
          'content-type': 'application/json',
          'x-upstream': name,
          connection: 'keep-alive, x-upstream-private',
          'x-upstream-private': 'hop',
        });
        res.end(JSON.stringify(echoed));
      }, () => res.destroy());
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
