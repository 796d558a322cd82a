import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import { ProblemException } from '../errors';
import { readRequestBody } from './request-body';

const REQUEST = 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{"name":"a"}';

/**
 * The outcome of readRequestBody on a node:http server. Without consumeFirst the client closes
 * its side after the request and the body is read as that end arrives: node has ended the
 * connection but not yet closed it, so the request is not destroyed yet while its socket no
 * longer reads. That is the state a request is in when its client goes away while a route's
 * guard still runs (a load generator ending its run), and the body parser takes such a request
 * for finished and skips it. With consumeFirst the stream is drained before readRequestBody runs.
 */
async function readAfter(consumeFirst: boolean): Promise<unknown> {
  let server: Server | undefined;
  try {
    return await new Promise<unknown>((resolve) => {
      const listening = createServer((req: IncomingMessage, res: ServerResponse) => {
        const read = () =>
          readRequestBody(req as Request, res as unknown as Response).then(
            () => resolve({ body: (req as Request).body as unknown }),
            (err: unknown) => resolve(err),
          );
        if (consumeFirst) {
          req.resume(); // someone else reads the body first (a body parser the app should not have)
          req.once('end', read);
        } else if (req.socket.readableEnded) read();
        else req.socket.once('end', read);
      });
      server = listening;
      listening.listen(0, '127.0.0.1', () => {
        const port = (listening.address() as AddressInfo).port;
        const socket = connect(port, '127.0.0.1', () => (consumeFirst ? socket.write(REQUEST) : socket.end(REQUEST)));
        socket.on('error', () => undefined);
      });
    });
  } finally {
    server?.closeAllConnections();
    server?.close();
  }
}

describe('readRequestBody', () => {
  it('a body whose client closed its side before it was read: a 400 problem, not a server error', async () => {
    const outcome = await readAfter(false);
    expect(outcome).toBeInstanceOf(ProblemException);
    const problem = outcome as ProblemException;
    expect(problem.getStatus()).toBe(400);
    expect(JSON.stringify(problem.getResponse())).toContain('The request body was cut off before it arrived whole.');
  });

  it('a body some other parser read first: an error of the service, not the client', async () => {
    const outcome = await readAfter(true);
    expect(outcome).not.toBeInstanceOf(ProblemException);
    expect(String(outcome)).toContain('The request body was read before the platform');
  });
});
