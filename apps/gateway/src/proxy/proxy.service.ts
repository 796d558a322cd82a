import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ERROR_CODES } from '@vault/contracts';
import { acceptRequestId, REQUEST_ID_HEADER } from '@vault/platform';
import { Agent, IncomingMessage, request, ServerResponse } from 'node:http';
import { GatewayEnv } from '../config/gateway.env';
import { sendProblem } from '../edge/problem-response';
import { HostRouter, Upstream } from '../routing/host-router';
import { bodyLimitFor, declaresTooMuch, describeLimit, isJsonMediaType } from './body-limit';
import { ClientRateLimiter } from './client-rate-limiter';
import { clientResponseHeaders, hasBody, upstreamRequestHeaders } from './forward-headers';

type Outcome = 'timeout' | 'too_large' | undefined;

/**
 * Streams every non-health request to the module its Host names: the body is
 * never parsed nor buffered, only counted against the limits; upstream
 * connections are kept alive and reused.
 */
@Injectable()
export class ProxyService implements OnApplicationShutdown {
  private readonly logger = new Logger('Proxy');
  readonly router: HostRouter;
  private readonly agent = new Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
  private readonly limiter: ClientRateLimiter;

  constructor(private readonly env: GatewayEnv) {
    this.router = new HostRouter(env.GATEWAY_DOMAIN, {
      'developer-api': env.DEVELOPER_SERVICE_URL,
      'user-api': env.USER_SERVICE_URL,
      'records-api': env.RECORDS_SERVICE_URL,
    });
    this.limiter = new ClientRateLimiter(env.RATE_LIMIT_PER_MINUTE);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
    const clientIp = req.socket.remoteAddress ?? '';
    this.limiter.retryAfter(clientIp).then(
      (wait) => {
        if (wait === undefined) this.route(req, res, requestId, clientIp);
        else
          sendProblem(res, 429, ERROR_CODES.tooManyRequests, 'Too many requests; retry later.', requestId, {
            headers: { 'retry-after': String(wait) },
            close: hasBody(req.headers),
          });
      },
      (err) => this.internalError(res, requestId, err),
    );
  }

  private route(req: IncomingMessage, res: ServerResponse, requestId: string, clientIp: string): void {
    const upstream = this.router.resolve(req.headers.host);
    if (!upstream) {
      sendProblem(res, 404, ERROR_CODES.unknownHost, 'No module is served at this host name.', requestId, {
        close: hasBody(req.headers),
      });
      return;
    }
    const limit = bodyLimitFor(req.headers, {
      json: this.env.MAX_JSON_BODY_BYTES,
      other: this.env.MAX_UPLOAD_BYTES,
    });
    if (declaresTooMuch(req.headers, limit)) {
      this.tooLarge(req, res, requestId, limit);
      return;
    }
    this.forward(req, res, requestId, clientIp, upstream, limit);
  }

  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    clientIp: string,
    upstream: Upstream,
    limit: number,
  ): void {
    let outcome: Outcome;
    const proxyReq = request({
      agent: this.agent,
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: upstreamRequestHeaders(req.headers, { requestId, clientIp }),
    });
    proxyReq.setTimeout(this.env.UPSTREAM_TIMEOUT_MS, () => {
      outcome = 'timeout';
      proxyReq.destroy();
    });
    proxyReq.on('response', (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, clientResponseHeaders(up.headers, requestId));
      up.on('error', () => res.destroy());
      up.pipe(res);
    });
    proxyReq.on('error', (err) => this.upstreamFailed(req, res, requestId, upstream, outcome, err));
    res.on('close', () => {
      if (!res.writableFinished) proxyReq.destroy();
    });
    if (!hasBody(req.headers)) {
      proxyReq.end();
      return;
    }
    req.on('error', () => proxyReq.destroy());
    if (req.headers['content-length'] === undefined) {
      // Chunked: the length is unknown up front, so count while streaming.
      this.countBody(req, limit, () => {
        outcome = 'too_large';
        req.unpipe(proxyReq);
        proxyReq.destroy();
        this.tooLarge(req, res, requestId, limit);
      });
    }
    req.pipe(proxyReq);
  }

  private countBody(req: IncomingMessage, limit: number, exceeded: () => void): void {
    let seen = 0;
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) {
        req.off('data', onData);
        exceeded();
      }
    };
    req.on('data', onData);
  }

  private tooLarge(req: IncomingMessage, res: ServerResponse, requestId: string, limit: number): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const json = isJsonMediaType(req.headers['content-type']);
    sendProblem(res, 413, ERROR_CODES.payloadTooLarge, describeLimit(limit, json), requestId, {
      close: true,
    });
  }

  private upstreamFailed(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    upstream: Upstream,
    outcome: Outcome,
    err: Error & { code?: string },
  ): void {
    if (outcome === 'too_large') return;
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    const close = hasBody(req.headers);
    if (outcome === 'timeout') {
      this.logger.warn(`${upstream.module} did not answer in time [${requestId}]`);
      sendProblem(res, 504, ERROR_CODES.gatewayTimeout, 'The module did not answer in time.', requestId, {
        close,
      });
      return;
    }
    this.logger.warn(`${upstream.module} unreachable: ${err.code ?? err.message} [${requestId}]`);
    sendProblem(res, 502, ERROR_CODES.badGateway, 'The module is not reachable right now.', requestId, {
      close,
    });
  }

  private internalError(res: ServerResponse, requestId: string, err: unknown): void {
    this.logger.error(`request failed [${requestId}]`, err instanceof Error ? err.stack : String(err));
    if (res.headersSent) res.destroy();
    else sendProblem(res, 500, ERROR_CODES.internal, 'An unexpected error occurred.', requestId, { close: true });
  }

  onApplicationShutdown(): void {
    this.agent.destroy();
  }
}
