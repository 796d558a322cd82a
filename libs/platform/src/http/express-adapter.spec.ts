import type { NestApplicationOptions } from '@nestjs/common';
import type { Express, Request, Response } from 'express';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import express from 'express';
import { ETagged } from './conditional-requests';
import { PlatformExpressAdapter } from './express-adapter';

interface Seen {
  /** The prototypes a request and its response had when the server emitted them (before Express ran). */
  requestPrototype: object | null;
  responsePrototype: object | null;
  /** What the route answered with. */
  status: number;
  body: string;
}

/** Starts the adapter's server with one Express route, sends one request, and closes it. */
async function oneRequest(options: NestApplicationOptions, tls: boolean): Promise<Seen & { app: Express }> {
  const adapter = new PlatformExpressAdapter();
  const app = adapter.getInstance<Express>();
  app.get('/items/:id', (req: Request, res: Response) => void res.status(201).json({ id: req.params['id'] }));
  adapter.initHttpServer(options);
  const server = adapter.getHttpServer() as http.Server;
  let requestPrototype: object | null = null;
  let responsePrototype: object | null = null;
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    requestPrototype = Object.getPrototypeOf(req) as object | null;
    responsePrototype = Object.getPrototypeOf(res) as object | null;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const get = tls ? https.get : http.get;
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/items/a%20b', rejectUnauthorized: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      }).on('error', reject);
    });
    return { app, requestPrototype, responsePrototype, status, body };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('PlatformExpressAdapter', () => {
  it("creates every request and response over HTTP with Express's prototypes, and Express still routes and answers", async () => {
    const seen = await oneRequest({}, false);
    expect(seen.requestPrototype).toBe(seen.app.request);
    expect(seen.responsePrototype).toBe(seen.app.response);
    expect(seen.status).toBe(201);
    expect(JSON.parse(seen.body)).toEqual({ id: 'a b' });
  });

  it('does the same for an HTTPS server made from httpsOptions', async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' });
    const seen = await oneRequest({ httpsOptions: { key: pems.private, cert: pems.cert } }, true);
    expect(seen.requestPrototype).toBe(seen.app.request);
    expect(seen.responsePrototype).toBe(seen.app.response);
    expect(seen.status).toBe(201);
    expect(JSON.parse(seen.body)).toEqual({ id: 'a b' });
  });

  it("leaves forceCloseConnections to Nest's own server (plain messages, Express switches them)", async () => {
    const seen = await oneRequest({ forceCloseConnections: true }, false);
    expect(seen.requestPrototype).toBe(http.IncomingMessage.prototype);
    expect(seen.responsePrototype).toBe(http.ServerResponse.prototype);
    expect(seen.status).toBe(201);
  });

  it("refuses an app whose request and response prototypes are not Node's", () => {
    const app = Object.assign(express(), { request: {} });
    expect(() => new PlatformExpressAdapter(app).initHttpServer({})).toThrow(TypeError);
  });

  describe('reply to an ETagged answer (a @Conditional read)', () => {
    /** One GET to an Express route whose answer goes through the adapter's reply. */
    async function tagged(headers: Record<string, string>, method = 'GET') {
      const adapter = new PlatformExpressAdapter();
      const app = adapter.getInstance<Express>();
      app.get('/r', (_req: Request, res: Response) => {
        try {
          adapter.reply(res, new ETagged({ name: 'a' }, '"r.3.owner"', 'Authorization'), 200);
        } catch (err) {
          res.status(599).json({ thrown: (err as Error).message });
        }
      });
      adapter.initHttpServer({});
      const server = adapter.getHttpServer() as http.Server;
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        const res = await fetch(`http://127.0.0.1:${port}/r`, { method, headers });
        return { status: res.status, etag: res.headers.get('etag'), vary: res.headers.get('vary'), body: await res.text() };
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }

    it('sends the body with its ETag and Vary', async () => {
      expect(await tagged({})).toEqual({ status: 200, etag: '"r.3.owner"', vary: 'Authorization', body: '{"name":"a"}' });
    });

    it('answers 304 without a body when If-None-Match names the version (weak comparison too)', async () => {
      for (const header of ['"r.3.owner"', 'W/"r.3.owner"', '"r.2.owner", "r.3.owner"', '*']) {
        expect(await tagged({ 'if-none-match': header })).toEqual({
          status: 304,
          etag: '"r.3.owner"',
          vary: 'Authorization',
          body: '',
        });
      }
      expect((await tagged({ 'if-none-match': '"r.2.owner"' })).status).toBe(200);
      expect(await tagged({ 'if-none-match': '"r.3.owner"' }, 'HEAD')).toMatchObject({ status: 304, body: '' });
    });

    it('throws 412 when If-Match names no current version (the problem filter answers it)', async () => {
      const refused = await tagged({ 'if-match': '"r.2.owner"' });
      expect(refused.status).toBe(599);
      expect(JSON.parse(refused.body)).toEqual({ thrown: expect.stringContaining('If-Match') });
      expect((await tagged({ 'if-match': '"r.3.owner"' })).status).toBe(200);
    });

    it('is never written as JSON by anything else', () => {
      expect(() => JSON.stringify(new ETagged({ name: 'a' }, '"r.3"'))).toThrow(/PlatformExpressAdapter/);
    });
  });
});
