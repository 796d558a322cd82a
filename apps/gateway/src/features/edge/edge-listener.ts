import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { observeRequest } from '@vault/platform/observability';
import { acceptRequestId, REQUEST_ID_HEADER } from '@vault/platform/http';
import { sendProblem } from '../../capabilities/answers/problem-response';
import { framingRefusal } from '../../capabilities/answers/request-framing';
import { withSecurityHeaders } from '../../capabilities/answers/security-headers';
import { isApiDocsPath } from '../../capabilities/api-docs/api-docs';

const HEALTH_PATHS = ['/health/live', '/health/ready'];

/** The gateway's own endpoints, answered for any Host and never proxied. */
export function isHealthPath(url: string | undefined): boolean {
  if (!url) return false;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return HEALTH_PATHS.includes(path);
}

/**
 * Puts the proxy in front of Nest on the HTTPS server: a request framed in a
 * way the gateway cannot forward faithfully (request-framing.ts) is refused,
 * health requests and the API description go to the Nest application (which serves
 * only those),
 * every other request goes straight to the proxy without passing through
 * express routing.
 */
export function routeRequests(server: Server, proxy: (req: IncomingMessage, res: ServerResponse) => void): void {
  const nest = server.listeners('request')[0] as RequestListener | undefined;
  if (!nest) throw new Error('the Nest request listener is not attached to the server');
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const refusal = framingRefusal(req);
    if (refusal) {
      // Framing the gateway cannot forward faithfully: answered here, the connection closed (its body is not read).
      sendProblem(res, refusal, acceptRequestId(req.headers[REQUEST_ID_HEADER]), { close: true });
    } else if (isHealthPath(req.url) || isApiDocsPath(req.url)) {
      // Health and the API description (capabilities/api-docs) are the gateway's own answers.
      observeRequest(req, res, () => (req.url ?? '').split('?')[0]);
      // Health answers carry the security headers of every other answer (set before Nest adds its own).
      for (const [name, value] of Object.entries(withSecurityHeaders({}, 200, true))) res.setHeader(name, value ?? '');
      nest(req, res);
    } else proxy(req, res);
  });
}
