import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';
import * as http from 'node:http';
import * as https from 'node:https';
import { answerTagged, ETagged, NOT_MODIFIED } from './conditional-requests';

/**
 * Nest's Express adapter whose HTTP(S) server creates every request and response with
 * Express's prototypes (`app.request`, `app.response`) already in place.
 *
 * Why: Express gives each request and response its own prototype as it arrives
 * (`Object.setPrototypeOf` in `app.handle`, a no-op when the prototype is already that
 * one). In V8 that switch keeps the whole object graph of a request (everything the
 * router, Nest and the handler hang on it) alive through the next young-generation
 * collections: a fifth of what records-service allocated per request was promoted to
 * the old generation, and a full collection (a 20–40 ms pause) followed every few
 * seconds under load. With the prototypes in place from the start a request's objects
 * die young (docs/benchmarks.md, "Express's prototype switch").
 *
 * It also answers the ETagged results of reads (`@Conditional('read')`: ETag, Vary, 412,
 * 304) as it writes them, where an interceptor would cost every such request an rxjs chain
 * and two `AsyncResource.bind` calls (in Node 20 each defines a deprecated accessor whose
 * functions get their prototype switched: the same promotion as above).
 */
export class PlatformExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    // Nest's own path tracks open connections for forceCloseConnections (a private method)
    if (options?.forceCloseConnections) return super.initHttpServer(options);
    const app = this.getInstance<Express>();
    const messages = expressMessages(app);
    this.httpServer = options?.httpsOptions
      ? https.createServer({ ...options.httpsOptions, ...messages }, app)
      : http.createServer(messages, app);
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (body instanceof ETagged) {
      const answer = answerTagged(response.req, response, body);
      if (answer === NOT_MODIFIED) return response.status(304).end();
      return super.reply(response, answer, statusCode);
    }
    return super.reply(response, body, statusCode);
  }
}

/**
 * The request and response classes of a server for `app`: Node's own, extended, whose
 * prototypes become Express's (`app.request`, `app.response`, which they inherit from).
 * Subclasses rather than functions given Express's objects as `prototype`: V8 builds
 * each instance of such a function (Reflect.construct with it as new.target) through a
 * slow path, 50 µs or more per request.
 */
function expressMessages(app: Express) {
  const expressApp = app as unknown as { request: object; response: object };
  if (!(expressApp.request instanceof http.IncomingMessage) || !(expressApp.response instanceof http.ServerResponse)) {
    throw new TypeError("the app's request and response prototypes are not Node's");
  }
  class Request extends http.IncomingMessage {}
  class Response extends http.ServerResponse {}
  Object.setPrototypeOf(Request.prototype, expressApp.request);
  Object.setPrototypeOf(Response.prototype, expressApp.response);
  expressApp.request = Request.prototype;
  expressApp.response = Response.prototype;
  return { IncomingMessage: Request, ServerResponse: Response };
}
