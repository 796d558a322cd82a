import { createServer, Server, ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AddressInfo } from 'node:net';
import { RunningGateway } from '../src/app/start-gateway';
import { bootGateway } from './support/boot';

const FEED_PATH = '/api/v1/vault/vault-id/v-1/events';
const UPSTREAM_TIMEOUT_MS = 1000;

/**
 * A records-service stand-in answering the change feed as Server-Sent Events the way the
 * service does (docs/change-feed.md): one event at once, then heartbeat comments while
 * idle, one more event after longer than the gateway's upstream timeout, then the end.
 */
class FeedUpstream {
  readonly streams: ServerResponse[] = [];
  private server?: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.streams.push(res);
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      });
      res.write(`id: c1\nevent: record.created\ndata: {"id":"e1"}\n\n`);
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), UPSTREAM_TIMEOUT_MS / 4);
      setTimeout(() => {
        clearInterval(heartbeat);
        res.end(`id: c2\nevent: record.updated\ndata: {"id":"e2"}\n\n`);
      }, UPSTREAM_TIMEOUT_MS * 2);
      req.on('close', () => clearInterval(heartbeat));
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    this.port = (this.server?.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

describe('gateway in front of a change-feed event stream', () => {
  let upstream: FeedUpstream;
  let gw: RunningGateway;

  beforeAll(async () => {
    upstream = new FeedUpstream();
    await upstream.start();
    const url = `http://127.0.0.1:${upstream.port}`;
    gw = await bootGateway({
      GATEWAY_DOMAIN: 'vault.test',
      DEVELOPER_SERVICE_URL: url,
      USER_SERVICE_URL: url,
      RECORDS_SERVICE_URL: url,
      UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => {
    await gw?.app.close();
    await upstream?.stop();
  });

  it('passes each event on as it is written and keeps a stream with heartbeats open past the upstream timeout', async () => {
    const started = Date.now();
    const arrivals: { at: number; text: string }[] = [];
    const { status, headers } = await new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          port: gw.httpsPort,
          path: FEED_PATH,
          headers: { host: 'records-api.vault.test', accept: 'text/event-stream' },
          servername: 'records-api.vault.test',
          ca: gw.tls.cert,
          agent: false,
        },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (text: string) => arrivals.push({ at: Date.now() - started, text }));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });

    expect(status).toBe(200);
    expect(headers['content-type']).toMatch(/^text\/event-stream/);
    expect(headers['x-accel-buffering']).toBe('no');
    const body = arrivals.map((a) => a.text).join('');
    // the whole stream, heartbeats included, got through although it outlived UPSTREAM_TIMEOUT_MS
    expect(body).toContain('data: {"id":"e1"}');
    expect(body).toContain(': heartbeat');
    expect(body.trimEnd().endsWith('data: {"id":"e2"}')).toBe(true);
    // the first event reached the client long before the stream ended: nothing is buffered
    const first = arrivals.find((a) => a.text.includes('"e1"'));
    const last = arrivals.find((a) => a.text.includes('"e2"'));
    expect(first && last && last.at - first.at).toBeGreaterThan(UPSTREAM_TIMEOUT_MS);
    expect(upstream.streams).toHaveLength(1);
  });
});
