import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { COMMON_ERRORS, GATEWAY_ERRORS } from '@vault/contracts';
import { acceptRequestId, REQUEST_ID_HEADER } from '@vault/platform/http';
import { exportMetrics, observeRequest, rateLimitRejections, TRACE_RESPONSE_HEADER } from '@vault/platform/observability';
import { Agent, ClientRequest, IncomingMessage, request, ServerResponse } from 'node:http';
import { GatewayEnv } from '../../config/gateway.env';
import { bodyPending, closeAfterAnswer, hasBody } from '../answers/early-answer';
import { sendProblem } from '../answers/problem-response';
import { withSecurityHeaders } from '../answers/security-headers';
import { CorsService } from '../cors/cors.service';
import { CorsCase, responseHeaders, varyOrigin } from '../cors/cors-rules';
import { answerPreflight } from '../cors/preflight';
import { RateDecision } from '../rate-limit/rate-limiter';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { tokenIdentity } from '../rate-limit/token-identity';
import { HostRouter, Upstream } from '../routing/host-router';
import { BodyLimit, BodyLimits, declaresTooMuch, describeLimit } from './body-limit';
import { ClientAddressResolver } from './client-address';
import { clientResponseHeaders, upstreamRequestHeaders } from './forward-headers';

/** One client request on its way through the gateway. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  clientIp: string;
  upstream: Upstream;
  /** Byte limit of the body, by the kind of route (upload or not). */
  limit: BodyLimit;
  /** Where the rate limiter counted the request. */
  rate: RateDecision;
}

/** How one forwarding attempt ended early: the upstream timed out, or the gateway cut it off. */
interface ForwardState {
  timedOut: boolean;
  cutOff: boolean;
}

/** Metrics label of requests whose Host names no module. */
const UNKNOWN_HOST_ROUTE = 'unknown_host';

/** Idle upstream sockets are closed after this long at most (sooner when the upstream announces less). */
const IDLE_SOCKET_MS = 30_000;

/**
 * Streams every non-health request to the module its Host names: the body is
 * never parsed nor buffered, only counted against the limits; upstream
 * connections are kept alive and reused.
 */
@Injectable()
export class ProxyService implements OnApplicationShutdown {
  private readonly logger = new Logger('Proxy');
  readonly router: HostRouter;
  private readonly agent = new Agent({
    keepAlive: true,
    // Small writes (headers, chunk ends) leave at once instead of waiting for an ACK.
    noDelay: true,
    maxFreeSockets: 256,
    scheduling: 'lifo',
    timeout: IDLE_SOCKET_MS,
  });
  private readonly clients: ClientAddressResolver;
  private readonly limits: BodyLimits;

  constructor(
    private readonly env: GatewayEnv,
    private readonly rateLimits: RateLimitService,
    private readonly cors: CorsService,
  ) {
    this.router = new HostRouter(env.GATEWAY_DOMAIN, {
      'developer-api': env.DEVELOPER_SERVICE_URL,
      'user-api': env.USER_SERVICE_URL,
      'records-api': env.RECORDS_SERVICE_URL,
    });
    this.clients = new ClientAddressResolver(env.TRUSTED_PROXY_CIDRS);
    this.limits = new BodyLimits({ json: env.MAX_JSON_BODY_BYTES, upload: env.MAX_UPLOAD_BYTES });
    exportMetrics(rateLimitRejections);
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const requestId = acceptRequestId(req.headers[REQUEST_ID_HEADER]);
    // Labelled by module (developer-api, user-api, records-api): the gateway knows no route templates.
    // The tenant is the one the bearer token names (the module verifies it; its own line says so).
    observeRequest(req, res, () => this.router.resolve(req.headers.host)?.module ?? UNKNOWN_HOST_ROUTE, {
      requestId: () => requestId,
      tenant: () => tokenIdentity(req.headers.authorization)?.tenant,
    });
    const clientIp = this.clients.resolve(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    let rate: RateDecision;
    try {
      rate = this.rateLimits.check(req.headers, clientIp);
    } catch (err) {
      this.internalError(res, requestId, err);
      return;
    }
    // Every answer from here on (relayed or the gateway's own) carries the limit headers.
    for (const [name, value] of Object.entries(rate.headers)) res.setHeader(name, value);
    const cors = this.cors.classify(req, this.ownOrigin);
    // Answers differ by Origin; a registered one may read every answer, the gateway's own included.
    res.setHeader('vary', 'Origin');
    if (cors.kind === 'request' && cors.registered) {
      for (const [name, value] of Object.entries(responseHeaders(cors.origin))) res.setHeader(name, value);
    }
    if (rate.allowed) this.route(req, res, requestId, clientIp, rate, cors);
    else {
      rateLimitRejections.inc();
      sendProblem(res, { entry: COMMON_ERRORS.tooManyRequests, detail: 'Too many requests; retry later.' }, requestId, {
        headers: { 'retry-after': String(rate.retryAfter) },
        close: bodyPending(req),
      });
    }
  }

  /** A page served by a module host itself (https, a module's host name): same-origin, no CORS. */
  private readonly ownOrigin = (origin: string): boolean =>
    origin.startsWith('https://') && this.router.resolve(origin.slice('https://'.length)) !== undefined;

  private route(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    clientIp: string,
    rate: RateDecision,
    cors: CorsCase,
  ): void {
    const close = bodyPending(req);
    if (req.url?.charCodeAt(0) !== 0x2f) {
      // Absolute-form or `*` targets would let the URL disagree with the Host that was routed.
      sendProblem(res, { entry: COMMON_ERRORS.validationFailed, detail: 'The request target must be a path.' }, requestId, {
        close,
      });
      return;
    }
    const upstream = this.router.resolve(req.headers.host);
    if (!upstream) {
      sendProblem(res, { entry: GATEWAY_ERRORS.unknownHost, detail: 'No module is served at this host name.' }, requestId, {
        close,
      });
      return;
    }
    if (cors.kind === 'preflight') {
      answerPreflight(res, cors, requestId, close);
      return;
    }
    const limit = this.limits.limitFor(upstream.module, req.method, req.url ?? '');
    const x: Exchange = { req, res, requestId, clientIp, upstream, limit, rate };
    if (declaresTooMuch(req.headers, limit.bytes)) this.tooLarge(x);
    else this.forward(x, true);
  }

  /**
   * Sends the request upstream and pipes the answer back. A bodiless request
   * that fails on a reused keep-alive socket (closed by the upstream at the
   * same moment) is sent once more on a fresh one.
   */
  private forward(x: Exchange, mayRetry: boolean): void {
    const { req, res } = x;
    const withBody = hasBody(req.headers);
    const state: ForwardState = { timedOut: false, cutOff: false };
    const proxyReq = request({
      agent: this.agent,
      host: x.upstream.hostname,
      port: x.upstream.port,
      method: req.method,
      path: req.url,
      headers: upstreamRequestHeaders(req.headers, x),
    });
    proxyReq.setTimeout(this.env.UPSTREAM_TIMEOUT_MS, () => {
      state.timedOut = true;
      proxyReq.destroy();
    });
    proxyReq.on('response', (up) => this.relay(x, proxyReq, up, state));
    proxyReq.on('error', (err: Error & { code?: string }) => {
      if (state.cutOff) return;
      if (mayRetry && !withBody && !state.timedOut && proxyReq.reusedSocket && err.code === 'ECONNRESET' && !res.headersSent) {
        this.forward(x, false);
        return;
      }
      this.upstreamFailed(x, state.timedOut, err);
    });
    const onClientGone = () => {
      if (!res.writableFinished) proxyReq.destroy();
    };
    res.on('close', onClientGone);
    proxyReq.on('close', () => res.off('close', onClientGone));
    if (!withBody) {
      proxyReq.end();
      return;
    }
    req.on('error', () => proxyReq.destroy());
    if (req.headers['content-length'] === undefined) {
      // Chunked: the length is unknown up front, so count while streaming.
      this.countBody(req, x.limit.bytes, () => {
        state.cutOff = true;
        req.unpipe(proxyReq);
        proxyReq.destroy();
        this.tooLarge(x);
      });
    }
    req.pipe(proxyReq);
  }

  /**
   * Relays the module's answer. One given before the gateway received the whole body (an
   * early 413, say) closes the connection, and the upstream exchange, which can never
   * complete, is cut once the answer is sent.
   */
  private relay(x: Exchange, proxyReq: ClientRequest, up: IncomingMessage, state: ForwardState): void {
    const { req, res } = x;
    const early = bodyPending(req);
    if (early) closeAfterAnswer(res);
    const status = up.statusCode ?? 502;
    // The module refused the token: the request was not spent by the identity it names.
    if (status === 401) this.rateLimits.tokenRefused(x.rate);
    // The gateway's limit headers are the ones clients see.
    delete up.headers['ratelimit'];
    delete up.headers['ratelimit-policy'];
    // The gateway alone answers CORS.
    for (const name of Object.keys(up.headers)) if (name.startsWith('access-control-')) delete up.headers[name];
    // With tracing on here, the client's traceresponse names the gateway's server span, not the module's.
    if (res.hasHeader(TRACE_RESPONSE_HEADER)) delete up.headers[TRACE_RESPONSE_HEADER];
    const headers = withSecurityHeaders(clientResponseHeaders(up.headers, x.requestId), status, true);
    headers['vary'] = varyOrigin(headers['vary']);
    res.writeHead(status, up.statusMessage, headers);
    up.on('error', () => res.destroy());
    up.pipe(res);
    if (early) {
      res.once('finish', () => {
        if (proxyReq.writableFinished) return;
        state.cutOff = true;
        proxyReq.destroy();
      });
    }
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

  private tooLarge({ res, requestId, limit }: Exchange): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, { entry: COMMON_ERRORS.payloadTooLarge, detail: describeLimit(limit) }, requestId, {
      close: true,
    });
  }

  private upstreamFailed({ req, res, requestId, upstream }: Exchange, timedOut: boolean, err: Error & { code?: string }): void {
    if (res.headersSent || res.destroyed) {
      // An answer already relayed whole stays; one cut short ends the connection.
      if (!res.writableEnded) res.destroy();
      return;
    }
    const close = bodyPending(req);
    if (timedOut) {
      this.logger.warn(`${upstream.module} did not answer in time [${requestId}]`);
      sendProblem(res, { entry: GATEWAY_ERRORS.gatewayTimeout, detail: 'The module did not answer in time.' }, requestId, {
        close,
      });
      return;
    }
    this.logger.warn(`${upstream.module} unreachable: ${err.code ?? err.message} [${requestId}]`);
    sendProblem(res, { entry: GATEWAY_ERRORS.badGateway, detail: 'The module is not reachable right now.' }, requestId, {
      close,
    });
  }

  private internalError(res: ServerResponse, requestId: string, err: unknown): void {
    this.logger.error(`request failed [${requestId}]`, err instanceof Error ? err.stack : String(err));
    if (res.headersSent) res.destroy();
    else sendProblem(res, { entry: COMMON_ERRORS.internal, detail: 'An unexpected error occurred.' }, requestId, { close: true });
  }

  onApplicationShutdown(): void {
    this.agent.destroy();
  }
}
