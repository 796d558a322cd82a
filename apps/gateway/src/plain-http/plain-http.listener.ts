import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ERROR_CODES } from '@vault/contracts';
import { acceptRequestId, REQUEST_ID_HEADER } from '@vault/platform';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { sendProblem } from '../edge/problem-response';

/** Status of every plain-HTTP answer (see docs/gateway.md). */
export const PLAIN_HTTP_STATUS = 400;

/**
 * Plain HTTP is only served to refuse: every request, whatever its host, path
 * or method, gets a 400 problem body and the connection is closed. No
 * redirect (a redirect would invite clients to send credentials in clear
 * first), nothing proxied, the body never read.
 */
export function refusePlainHttp(req: IncomingMessage, res: ServerResponse): void {
  sendProblem(
    res,
    PLAIN_HTTP_STATUS,
    ERROR_CODES.httpsRequired,
    'This API is served over HTTPS only; the request was not processed.',
    acceptRequestId(req.headers[REQUEST_ID_HEADER]),
    { close: true },
  );
}

@Injectable()
export class PlainHttpListener implements OnApplicationShutdown {
  private server?: Server;

  /** Starts listening; resolves to the bound port (useful with port 0). */
  async listen(port: number, host: string): Promise<number> {
    const server = createServer(refusePlainHttp);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return (server.address() as AddressInfo).port;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server?.listening) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
