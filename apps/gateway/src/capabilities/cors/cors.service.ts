import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { corsOriginsBucket } from '@vault/contracts';
import { metricsRegistry } from '@vault/platform/observability';
import type { IncomingMessage } from 'node:http';
import { Counter } from 'prom-client';
import { GatewayEnv } from '../../config/gateway.env';
import { AllowedOrigins } from './allowed-origins';
import { CorsCase, corsCase } from './cors-rules';
import { OriginsWatch } from './origins-watch';

/** How long the start waits for the first replay of the origins before serving. */
const START_WAIT_MS = 3000;

/** Requests from a page whose origin no application registered (they got no CORS headers). */
export const corsRefusals = new Counter({
  name: 'gateway_cors_unregistered_origin_total',
  help: 'Requests from a browser origin no client application registered: preflights refused (403) and requests answered without CORS headers.',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

/**
 * CORS for browser pages: the origins every client application registered in the
 * developer module, learnt from the KV bucket it publishes them to (docs/gateway.md, "CORS").
 */
@Injectable()
export class CorsService implements OnModuleInit, OnApplicationShutdown {
  readonly origins = new AllowedOrigins();
  private readonly watch: OriginsWatch;

  constructor(env: GatewayEnv) {
    this.watch = new OriginsWatch(this.origins, {
      servers: env.NATS_URL,
      bucket: corsOriginsBucket(env.EVENTS_NAMESPACE),
      replicas: env.KV_REPLICAS,
    });
  }

  async onModuleInit(): Promise<void> {
    await this.watch.start(START_WAIT_MS);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.watch.stop();
  }

  /** The CORS case of a request; an unregistered origin is counted. */
  classify(req: IncomingMessage, ownOrigin: (origin: string) => boolean): CorsCase {
    const c = corsCase(req.method, req.headers, (o) => this.origins.has(o), ownOrigin);
    if (c.kind !== 'none' && !c.registered) corsRefusals.inc({ kind: c.kind });
    return c;
  }
}
