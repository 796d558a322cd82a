import { createServer, Server } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { RunningGateway } from '../src/app/start-gateway';
import { bootGateway } from './support/boot';
import { call } from './support/client';

/**
 * An upstream that drops a kept-alive connection when a second request
 * arrives on it, the way a server closing an idle socket races with reuse.
 */
async function droppingUpstream(): Promise<{ server: Server; url: string; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const served = new WeakSet<Socket>();
  const server = createServer((req, res) => {
    sockets.add(req.socket);
    if (served.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    served.add(req.socket);
    req.resume();
    req.on('end', () => res.end(JSON.stringify({ ok: true })));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets };
}

describe('gateway upstream keep-alive', () => {
  let upstream: Awaited<ReturnType<typeof droppingUpstream>>;
  let gw: RunningGateway;

  beforeAll(async () => {
    upstream = await droppingUpstream();
    gw = await bootGateway({ USER_SERVICE_URL: upstream.url });
  });
  afterAll(async () => {
    await gw?.app.close();
    upstream?.server.closeAllConnections();
    await new Promise((r) => upstream?.server.close(r));
  });

  it('reuses upstream connections and resends a bodiless request once when a reused one was dropped', async () => {
    const first = await call(gw.httpsPort, { host: 'user-api.localhost', path: '/api/v1/a' });
    expect(first.status).toBe(200);
    const second = await call(gw.httpsPort, { host: 'user-api.localhost', path: '/api/v1/b' });
    expect(second.status).toBe(200);
    expect(upstream.sockets.size).toBe(2);
  });

  it('does not resend a request with a body: 502', async () => {
    // The connection kept from the retried request above is dropped in turn.
    const res = await call(gw.httpsPort, {
      host: 'user-api.localhost',
      method: 'POST',
      path: '/api/v1/c',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(502);
    expect(res.json()).toMatchObject({ code: 'bad_gateway' });
  });

  it('refuses a request target that is not a path', async () => {
    const res = await call(gw.httpsPort, { host: 'user-api.localhost', path: 'http://user-api.localhost/api/v1/a' });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
  });
});
