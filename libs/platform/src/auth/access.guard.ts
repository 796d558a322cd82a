import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import type { Principal } from '@vault/contracts';
import { ProblemException } from '../errors/problem.exception';
import { ACCESS_RULE, AccessRule } from './access.decorators';
import { missingBearerToken } from './bearer-challenge';
import { JwtStrategy, VAULT_JWT_STRATEGY } from './jwt.strategy';
import { bearerRefusal } from './vault-jwt';

/**
 * The passport strategies, by name, that authenticate the requests of non-public routes,
 * tried in order (the first that authenticates wins): `vault-jwt` in apps that verify
 * tokens, then those an app adds (PlatformModule.forRoot({ authStrategies })).
 */
export const AUTH_STRATEGIES = Symbol('vault:auth-strategies');

/** @nestjs/passport's guard over `strategies`, refusing with the platform's 401 (RFC 6750 challenge). */
function passportGuard(strategies: string[]): CanActivate {
  class PlatformAuthGuard extends AuthGuard(strategies) {
    override handleRequest<U = Principal>(err: unknown, user: U | false, info: unknown, ctx: ExecutionContext): U {
      if (err) throw err;
      if (user) return user;
      throw bearerRefusal(info, ctx.switchToHttp().getRequest<Request>().headers.authorization);
    }
  }
  return new PlatformAuthGuard();
}

/**
 * Global guard, deny by default: a route without a declared access rule is
 * refused; `public` routes pass; every other rule needs a caller authenticated by one
 * of the passport strategies (AUTH_STRATEGIES: the platform's passport-jwt strategy on
 * its key store, and any an app plugs in), whose principal becomes `request.user`.
 * Domain rules (vault roles...) are checked afterwards by the owning service. Apps
 * without a strategy (identity, edge) refuse every such route with 401.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly authenticate?: CanActivate;
  /** The platform's strategy when it is the first one tried: its answer for a token it verified before. */
  private readonly verifiedBefore?: JwtStrategy;

  constructor(
    private readonly reflector: Reflector,
    @Optional() @Inject(AUTH_STRATEGIES) strategies?: string[],
    @Optional() vaultJwt?: JwtStrategy,
  ) {
    this.authenticate = strategies?.length ? passportGuard(strategies) : undefined;
    this.verifiedBefore = strategies?.[0] === VAULT_JWT_STRATEGY ? vaultJwt : undefined;
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [ctx.getHandler(), ctx.getClass()]);
    if (rule === undefined) {
      throw ProblemException.forbidden('This operation is not available.');
    }
    if (rule === 'public') return true;
    const req = ctx.switchToHttp().getRequest<Request & { user?: Principal; authInfo?: unknown }>();
    const authorization = req.headers.authorization;
    if (rule === 'optional' && authorization === undefined) return true;
    if (!this.authenticate) throw missingBearerToken(authorization);
    // A token the platform's strategy verified before: what passport would end with (the
    // strategy's `success`, or its 401 for a revoked token), without passport's
    // per-request copy of the strategy and its callbacks.
    const known = this.verifiedBefore?.verifiedBefore(req);
    if (known) {
      req.authInfo = undefined;
      req.user = known;
      return true;
    }
    return (await this.authenticate.canActivate(ctx)) as boolean;
  }
}
