import { Agent as HttpsAgent, request, Server } from 'node:https';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { connect } from 'node:tls';
import { Agent as UndiciAgent, Client } from 'undici';
import { RunningGateway } from '../src/app/start-gateway';
import { LINGER_MS } from '../src/capabilities/answers/early-answer';
import { bootGateway } from './support/boot';
import { generatedBody } from './support/client';
import { EchoUpstream } from './support/echo-upstream';

const UPLOAD_PATH = '/api/v1/vault/vault-id/v1/records/record-id/r1/record-files';
const BODY_BYTES = 8 * 1024 * 1024;
/** A second request on a healthy keep-alive client is answered well within this. */
const PROMPT_MS = 2_000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * An answer given before the request body was read to its end (the module's
 * early 413, the gateway's own refusals) closes the connection, so the next
 * request of a keep-alive client goes on a new connection and is answered.
 */
describe('gateway answers given before the request body was read', () => {
  let upstream: EchoUpstream;
  let gw: RunningGateway;

  beforeAll(async () => {
    upstream = await EchoUpstream.start('records');
    gw = await bootGateway({
      USER_SERVICE_URL: upstream.url,
      RECORDS_SERVICE_URL: upstream.url,
      MAX_JSON_BODY_BYTES: '1024',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => {
    await gw?.app.close();
    await upstream?.stop();
  });

  interface Refusal {
    name: string;
    host: string;
    path: string;
    headers: Record<string, string>;
    chunked?: boolean;
    status: number;
    code: string;
  }
  const multipart = { 'content-type': 'multipart/form-data; boundary=x' };
  const json = { 'content-type': 'application/json' };
  const earlyRefusals: Refusal[] = [
    {
      name: "the module's early 413, relayed",
      host: 'records-api.localhost',
      path: UPLOAD_PATH,
      headers: { ...multipart, 'x-test-refuse-early': '1' },
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: "the gateway's own 413 on a declared length",
      host: 'user-api.localhost',
      path: '/api/v1/accounts',
      headers: json,
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: "the gateway's own 413 on a chunked body",
      host: 'user-api.localhost',
      path: '/api/v1/accounts',
      headers: json,
      chunked: true,
      status: 413,
      code: 'payload_too_large',
    },
    {
      name: "the gateway's own 404 for an unknown host",
      host: 'nothing.localhost',
      path: UPLOAD_PATH,
      headers: multipart,
      status: 404,
      code: 'unknown_host',
    },
  ];

  /** The refused request: a large body, its length declared or sent chunked. */
  const refused = (r: Refusal) => ({
    method: 'POST',
    path: r.path,
    headers: { ...r.headers, ...(r.chunked ? {} : { 'content-length': String(BODY_BYTES) }) },
    body: generatedBody(BODY_BYTES).stream,
  });

  function expectRefusal(r: Refusal, first: Answer, closes = true): void {
    expect(first.status).toBe(r.status);
    if (closes) expect(first.headers.connection).toBe('close');
    expect(JSON.parse(first.body)).toMatchObject({ code: r.code, requestId: first.headers['x-request-id'] });
  }

  /** Sends the next request and checks it is answered, and soon. */
  async function expectNextAnswered(send: () => Promise<Answer>, path: string): Promise<void> {
    const started = Date.now();
    const second = await send();
    expect(second.status).toBe(200);
    expect(JSON.parse(second.body)).toMatchObject({ url: path });
    expect(Date.now() - started).toBeLessThan(PROMPT_MS);
  }

  describe.each(earlyRefusals)('after $name', (refusal) => {
    it('an undici keep-alive client gets the refusal with Connection: close, then its next request answered promptly', async () => {
      const client = new Client(`https://127.0.0.1:${gw.httpsPort}`, {
        connect: { rejectUnauthorized: false, servername: 'localhost' },
        pipelining: 1,
        keepAliveTimeout: 30_000,
      });
      const send = async (o: { method: string; path: string; headers: Record<string, string>; body?: Readable }) => {
        const res = await client.request(o);
        return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
      };
      try {
        const { headers, ...rest } = refused(refusal);
        expectRefusal(refusal, await send({ ...rest, headers: { ...headers, host: refusal.host } }));
        await expectNextAnswered(
          () => send({ method: 'GET', path: '/api/v1/after', headers: { host: 'user-api.localhost' } }),
          '/api/v1/after',
        );
      } finally {
        await client.close();
      }
    });

    it('a Node https.Agent with keepAlive gets the refusal with Connection: close, then its next request answered promptly', async () => {
      const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
      try {
        const { headers, ...rest } = refused(refusal);
        expectRefusal(refusal, await nodeRequest(gw.httpsPort, agent, { ...rest, headers: { ...headers, host: refusal.host } }));
        await expectNextAnswered(
          () =>
            nodeRequest(gw.httpsPort, agent, {
              method: 'GET',
              path: '/api/v1/after-agent',
              headers: { host: 'user-api.localhost' },
            }),
          '/api/v1/after-agent',
        );
      } finally {
        agent.destroy();
      }
    });
  });

  // fetch takes the Host from the URL: the module host names resolve to the gateway here.
  describe.each(earlyRefusals.filter((r) => r.code !== 'unknown_host'))('after $name', (refusal) => {
    it('undici fetch with a keep-alive dispatcher gets the refusal, then its next request answered promptly', async () => {
      const dispatcher = new UndiciAgent({
        connect: { rejectUnauthorized: false, lookup: toLoopback },
        connections: 1,
        keepAliveTimeout: 30_000,
      });
      try {
        const origin = `https://${refusal.host}:${gw.httpsPort}`;
        const { path, body, ...init } = refused(refusal);
        // fetch keeps the Connection header to itself: only the status and body are checked here.
        expectRefusal(
          refusal,
          await fetchVia(dispatcher, `${origin}${path}`, { ...init, body: Readable.toWeb(body) as ReadableStream }),
          false,
        );
        await expectNextAnswered(
          () => fetchVia(dispatcher, `${origin}/api/v1/after-fetch`, { method: 'GET' }),
          '/api/v1/after-fetch',
        );
      } finally {
        await dispatcher.close();
      }
    });
  });

  it('after an early answer reads and drops the rest of the body for a bounded time, then closes', async () => {
    // Half-open allowed: the client keeps sending after the gateway ended its side, as a slow uploader would.
    const options = {
      host: '127.0.0.1',
      port: gw.httpsPort,
      servername: 'localhost',
      rejectUnauthorized: false,
      allowHalfOpen: true,
    };
    const socket = connect(options);
    let sender: NodeJS.Timeout | undefined;
    try {
      await once(socket, 'secureConnect');
      socket.write(
        'POST /api/v1/accounts HTTP/1.1\r\nHost: user-api.localhost\r\nContent-Type: application/json\r\nContent-Length: 500000\r\n\r\n{"a":',
      );
      let answer = '';
      socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
      // The writes after the cut fail (EPIPE, reset); only the moment of the close counts here.
      socket.on('error', () => undefined);
      const closed = new Promise((resolve) => socket.once('close', resolve));
      await once(socket, 'end');
      const answered = Date.now();
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      sender = setInterval(() => socket.write(' '.repeat(100)), 50);
      await closed;
      const lingered = Date.now() - answered;
      expect(lingered).toBeGreaterThanOrEqual(LINGER_MS - 100);
      expect(lingered).toBeLessThan(LINGER_MS + 1_000);
    } finally {
      clearInterval(sender);
      socket.destroy();
    }
  });

  it('keeps the connection of an answer given after the whole body was read', async () => {
    const server = gw.app.getHttpServer() as Server;
    let connections = 0;
    const count = () => connections++;
    server.on('secureConnection', count);
    const client = new Client(`https://127.0.0.1:${gw.httpsPort}`, {
      connect: { rejectUnauthorized: false },
      pipelining: 1,
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await client.request({
          method: 'POST',
          path: '/api/v1/small',
          headers: {
            host: 'user-api.localhost',
            'content-type': 'application/json',
          },
          body: '{"a":1}',
        });
        expect(res.statusCode).toBe(200);
        expect(res.headers.connection).toBe('keep-alive');
        expect(await res.body.json()).toMatchObject({ body: '{"a":1}' });
      }
      expect(connections).toBe(1);
    } finally {
      server.off('secureConnection', count);
      await client.close();
    }
  });
});

/** Resolves every name to 127.0.0.1, where the gateway listens. */
function toLoopback(
  _host: string,
  options: { all?: boolean },
  done: (err: Error | null, address: string | Array<{ address: string; family: number }>, family?: number) => void,
): void {
  if (options.all) done(null, [{ address: '127.0.0.1', family: 4 }]);
  else done(null, '127.0.0.1', 4);
}

async function fetchVia(
  dispatcher: UndiciAgent,
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: ReadableStream },
): Promise<Answer> {
  const { fetch } = await import('undici');
  const res = await fetch(url, { ...init, dispatcher, ...(init.body ? { duplex: 'half' as const } : {}) });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

function nodeRequest(
  port: number,
  agent: HttpsAgent,
  o: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: Readable;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request({ host: '127.0.0.1', port, agent, servername: 'localhost', ...o }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    // The client may still be writing when the early answer arrives: its write then fails, the answer counts.
    req.on('error', (err) => (answered ? undefined : reject(err)));
    if (o.body) o.body.pipe(req);
    else req.end();
  });
}
