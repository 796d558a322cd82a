import { DynamicModule, Global, Inject, Injectable, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { ServiceEnv } from '../../config/env';
import { connectionFailure } from '../../config/url-credentials';
import { NatsConnectionState } from './nats-connection-state';

export { NatsConnectionState } from './nats-connection-state';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

/** Drains the shared NATS connection when the app stops, so in-flight publishes finish. */
@Injectable()
export class NatsLifecycle implements OnApplicationShutdown {
  private readonly logger = new Logger('Nats');
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async onApplicationShutdown(): Promise<void> {
    if (!this.nc.isClosed()) {
      await this.nc.drain().catch((e) => this.logger.warn(`drain failed: ${e}`));
    }
  }
}

/**
 * One NATS connection per process, reconnecting forever, and its state
 * (NatsConnectionState: readiness, fail-fast writes). JetStream and KV
 * clients are built on it where needed (they are cheap views over the connection).
 */
@Global()
@Module({})
export class NatsModule {
  static forRoot(name: string): DynamicModule {
    return {
      module: NatsModule,
      providers: [
        {
          provide: NATS_CONNECTION,
          inject: [ServiceEnv],
          useFactory: async (env: ServiceEnv) => {
            const nc = await connect({
              servers: env.NATS_URL.split(','),
              name,
              maxReconnectAttempts: -1,
              reconnectTimeWait: 500,
              // no Error built per request to keep its caller's stack: a JetStream publish is a
              // request, and the outbox relay makes one per event (docs/architecture.md)
              noAsyncTraces: true,
            }).catch((err: unknown) => {
              throw connectionFailure('NATS', 'NATS_URL', env.NATS_URL, err);
            });
            new Logger('Nats').log(`connected to ${nc.getServer()}`);
            return nc;
          },
        },
        {
          provide: NatsConnectionState,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new NatsConnectionState(nc),
        },
        NatsLifecycle,
      ],
      exports: [NATS_CONNECTION, NatsConnectionState],
    };
  }
}
