import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';

/** A client application's web page: an empty document and tus-js-client's browser build. */
const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>client app</title><script src="/tus.min.js"></script></head><body></body></html>';

export interface PageServer {
  server: Server;
  port: number;
}

/**
 * Serves the page of a browser client on loopback, plain HTTP, an ephemeral port: it is
 * `http://127.0.0.1:<port>` (registered on an application) and `http://localhost:<port>`
 * (registered nowhere), two origins for one server.
 */
export async function startPageServer(): Promise<PageServer> {
  const tus = readFileSync(path.join(require.resolve('tus-js-client/package.json'), '..', 'dist', 'tus.min.js'));
  const server = createServer((req, res) => {
    if (req.url === '/tus.min.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(tus);
    } else if (req.url === '/' || req.url?.startsWith('/?')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(PAGE);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
