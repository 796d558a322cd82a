import { DynamicModule, Global, MiddlewareConsumer, Module, NestModule, Optional, Provider } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE, DiscoveryModule, DiscoveryService, HttpAdapterHost } from '@nestjs/core';
import { BaseEnv, loadEnv, ServiceEnv } from '../config/env';
import { PROBLEM_FILTER_HOOKS, ProblemFilter } from '../errors/problem.filter';
import { createValidationPipe } from '../errors/validation';
import { StorableTextPipe } from '../errors/storable-text.pipe';
import { hasRequestIds, RequestIdMiddleware, requestIdProblemHooks } from '../http/request-id.middleware';
import { idempotencyProblemHooks } from '../idempotency/idempotency';
import { installRequestBodyGuard } from '../http/request-body';
import { ShutdownState } from '../health/shutdown-state';
import { HealthModule } from '../health/health.module';
import { NatsModule } from '../events/nats/nats.module';
import { AccessGuard, AUTH_STRATEGIES } from '../auth/access.guard';
import { JwtStrategy, VAULT_JWT_STRATEGY } from '../auth/jwt.strategy';
import { RevocationService } from '../auth/revocation.service';

/** The number of routes whose body the platform reads (RequestBodyGuard installed at boot). */
export const REQUEST_BODY_ROUTES = Symbol('vault:request-body-routes');

export interface PlatformOptions<E extends BaseEnv> {
  /** Service name, used for the NATS connection name and logs. */
  name: string;
  /** Env class validated at boot; injectable by its class and as BaseEnv/ServiceEnv. */
  env: new () => E;
  /**
   * `service`: database + NATS + token verification (user, records).
   * `identity`: database + NATS, public routes only, no token verification.
   * `edge`: no database, no NATS (the gateway).
   */
  kind: 'service' | 'identity' | 'edge';
  /**
   * Names of more passport strategies that authenticate non-public routes, tried after the
   * platform's `vault-jwt` (services) in this order; the app provides each strategy
   * (a provider extending `PassportStrategy(SomeStrategy, '<name>')` whose `validate`
   * returns a Principal). docs/developer-api.md, "Other passport strategies".
   */
  authStrategies?: string[];
}

/**
 * The global problem filter, with what the layers above errors/ add to it: the request
 * ids of http/, the replays and settlements of idempotency/.
 */
export function problemFilterProviders(): Provider[] {
  return [
    { provide: PROBLEM_FILTER_HOOKS, useValue: [requestIdProblemHooks, idempotencyProblemHooks] },
    { provide: APP_FILTER, useClass: ProblemFilter },
  ];
}

/**
 * Shared plumbing of every app: validated config, problem+json errors, strict
 * validation, request ids, request bodies (type, size, depth), health, graceful shutdown and (for services) NATS,
 * token verification with revocation, and the deny-by-default access guard.
 */
@Global()
@Module({})
export class PlatformModule implements NestModule {
  static forRoot<E extends BaseEnv>(opts: PlatformOptions<E>): DynamicModule {
    const hasBackends = opts.kind !== 'edge';
    const verifiesTokens = opts.kind === 'service';
    const envProviders = [
      { provide: opts.env, useFactory: () => loadEnv(opts.env) },
      { provide: BaseEnv, useExisting: opts.env },
      ...(hasBackends ? [{ provide: ServiceEnv, useExisting: opts.env }] : []),
    ];
    return {
      module: PlatformModule,
      imports: [
        DiscoveryModule,
        HealthModule.forRoot({ database: hasBackends, nats: hasBackends }),
        ...(hasBackends ? [NatsModule.forRoot(opts.name)] : []),
      ],
      providers: [
        ...envProviders,
        ShutdownState,
        ...problemFilterProviders(),
        { provide: APP_PIPE, useClass: StorableTextPipe },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_GUARD, useClass: AccessGuard },
        // made with the providers, before Nest reads the routes' guards
        { provide: REQUEST_BODY_ROUTES, useFactory: installRequestBodyGuard, inject: [DiscoveryService] },
        ...(verifiesTokens ? [RevocationService, JwtStrategy] : []),
        {
          provide: AUTH_STRATEGIES,
          useValue: [...(verifiesTokens ? [VAULT_JWT_STRATEGY] : []), ...(opts.authStrategies ?? [])],
        },
      ],
      exports: [...envProviders.map((p) => p.provide), ShutdownState, ...(verifiesTokens ? [RevocationService] : [])],
    };
  }

  constructor(@Optional() private readonly adapterHost?: HttpAdapterHost) {}

  /** Request ids for an app booted without useRequestIds (runService and bootTestApp run it first, for every path). */
  configure(consumer: MiddlewareConsumer): void {
    if (hasRequestIds(this.adapterHost?.httpAdapter?.getInstance())) return;
    consumer.apply(RequestIdMiddleware).forRoutes('*path');
  }
}
