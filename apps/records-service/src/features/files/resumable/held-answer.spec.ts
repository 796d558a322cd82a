import type { StoredAnswer } from '@vault/platform/idempotency';
import type { Response } from 'express';
import { createServer, get, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { holdAnswer } from './held-answer';

/** What the server saw of one held answer, and what the client received. */
interface Seen {
  order: string[];
  settled?: StoredAnswer;
  /** Whether the answer was finished when the callback given to `end` ran. */
  finishedAtCallback?: boolean;
  received: { status?: number; body: string };
}

describe('holdAnswer', () => {
  let server: Server;
  let write: (res: ServerResponse, done: () => void) => void;
  let seen: Seen;
  let called: Promise<void>;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      holdAnswer(res as unknown as Response, async (answer) => {
        seen.order.push('settle');
        seen.settled = answer;
      });
      write(res, () => {
        seen.order.push('callback');
        seen.finishedAtCallback = res.writableFinished;
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** One request whose answer `answer` writes; resolves once the client has it and the end callback ran. */
  const exchange = async (answer: (res: ServerResponse, done: () => void) => void) => {
    seen = { order: [], received: { body: '' } };
    called = new Promise<void>((resolve) => {
      write = (res, done) =>
        answer(res, () => {
          done();
          resolve();
        });
    });
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
        seen.received.status = res.statusCode;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (seen.received.body += chunk));
        res.on('end', resolve);
      }).on('error', reject);
    });
    await called;
    return seen;
  };

  it.each([
    ['end(callback)', (res: ServerResponse, done: () => void) => res.write('held') && res.end(done)],
    ['end(chunk, callback)', (res: ServerResponse, done: () => void) => res.end('held', done)],
    ['end(chunk, encoding, callback)', (res: ServerResponse, done: () => void) => res.end('held', 'utf8', done)],
  ])('calls the callback of %s once, after the key is settled and the answer really ended', async (_form, end) => {
    const s = await exchange((res, done) => {
      res.writeHead(201, { 'Tus-Resumable': '1.0.0' });
      end(res, done);
    });
    expect(s.order).toEqual(['settle', 'callback']);
    expect(s.finishedAtCallback).toBe(true);
    expect(s.settled).toMatchObject({ status: 201, headers: { 'tus-resumable': '1.0.0' }, body: 'held' });
    expect(s.received).toEqual({ status: 201, body: 'held' });
  });
});
