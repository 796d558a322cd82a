import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_ERRORS } from '@vault/contracts';
import { acceptRequestId, REQUEST_ID_HEADER } from '@vault/platform/http';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Refusal, sendProblem } from '../../capabilities/answers/problem-response';
import { answerUnparsedRequests } from '../../capabilities/answers/unparsed-requests';

/** The one plain-HTTP answer (see docs/gateway.md). */
const HTTPS_REQUIRED: Refusal = {
  entry: GATEWAY_ERRORS.httpsRequired,
  detail: 'This API is served over HTTPS only; the request was not processed.',
};

/**
 * Plain HTTP is only served to refuse: every request, whatever its host, path
 * or method (CONNECT included), gets a 400 problem body and the connection is closed. No
 * redirect (a redirect would invite clients to send credentials in clear
 * first), nothing proxied, the body never read.
 */
function refusePlainHttp(req: IncomingMessage, res: ServerResponse): void {
  sendProblem(res, HTTPS_REQUIRED, acceptRequestId(req.headers[REQUEST_ID_HEADER]), { close: true });
}

@Injectable()
export class PlainHttpListener implements OnApplicationShutdown {
  private server?: Server;

  /** Starts listening; resolves to the bound port (useful with port 0). */
  async listen(port: number, host: string): Promise<number> {
    const server = createServer(refusePlainHttp);
    // CONNECT and requests Node cannot parse get the same answer as every other request.
    answerUnparsedRequests(server, HTTPS_REQUIRED, () => HTTPS_REQUIRED);
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
