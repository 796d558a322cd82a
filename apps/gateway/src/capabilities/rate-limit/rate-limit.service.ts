import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { watchNatsConnection } from '@vault/platform/observability';
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayEnv } from '../../config/gateway.env';
import { NatsCounterSync } from './nats-counter-sync';
import { GatewayRateLimiter, RateDecision } from './rate-limiter';
import { tokenIdentity } from './token-identity';

/** How long the start waits for the shared store before serving with local counts. */
const STORE_WAIT_MS = 3000;

/** The gateway's rate limiter, its counters shared through NATS KV unless RATE_LIMIT_STORE=memory. */
@Injectable()
export class RateLimitService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  readonly limiter: GatewayRateLimiter;
  readonly sync?: NatsCounterSync;
  private unwatch?: () => void;

  constructor(env: GatewayEnv) {
    this.limiter = new GatewayRateLimiter({
      caller: env.RATE_LIMIT_CALLER_PER_MINUTE,
      tenant: env.RATE_LIMIT_TENANT_PER_MINUTE,
      address: env.RATE_LIMIT_ADDRESS_PER_MINUTE,
      anonymous: env.RATE_LIMIT_ANONYMOUS_PER_MINUTE,
    });
    if (env.RATE_LIMIT_STORE === 'nats') {
      this.sync = new NatsCounterSync(this.limiter.counters, {
        servers: env.NATS_URL,
        bucket: env.RATE_LIMIT_BUCKET,
        replicas: env.KV_REPLICAS,
        syncMs: env.RATE_LIMIT_SYNC_MS,
        processId: randomBytes(8).toString('hex'),
      });
    }
  }

  async onModuleInit(): Promise<void> {
    const sync = this.sync;
    if (sync)
      this.unwatch = watchNatsConnection('gateway-rate-limit-store', {
        get connected() {
          return sync.shared;
        },
      });
    if (!this.sync) {
      this.logger.log('rate-limit counters kept in this process only (RATE_LIMIT_STORE=memory)');
      return;
    }
    if (!(await this.sync.start(STORE_WAIT_MS))) {
      this.logger.warn('rate-limit store not reachable yet; each gateway process limits alone until it is');
    }
  }

  /** Counts one request of the caller its bearer token names (or of its address when it names none). */
  check(headers: IncomingHttpHeaders, clientIp: string): RateDecision {
    return this.limiter.check(tokenIdentity(headers.authorization), clientIp);
  }

  tokenRefused(decision: RateDecision): void {
    this.limiter.tokenRefused(decision);
  }

  async onApplicationShutdown(): Promise<void> {
    this.unwatch?.();
    await this.sync?.stop();
  }
}
