import { CanActivate, ExecutionContext, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { Principal } from '@vault/contracts';
import { ProblemException } from '../errors/problem.exception';
import { ACCESS_RULE, AccessRule } from './access.decorators';
import { missingBearerToken } from './bearer-challenge';
import { JwtStrategy } from './jwt.strategy';

/**
 * Global guard, deny by default: a route without a declared access rule is
 * refused; `public` routes pass; every other rule needs a valid bearer token
 * (checked by JwtStrategy, whose principal becomes `request.user`). Domain
 * rules (vault roles...) are checked afterwards by the owning service.
 * Apps without token verification (identity, edge) refuse every such route with 401.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Optional() private readonly tokens?: JwtStrategy,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [ctx.getHandler(), ctx.getClass()]);
    if (rule === undefined) {
      throw ProblemException.forbidden('This operation is not available.');
    }
    if (rule === 'public') return true;
    if (!this.tokens) throw missingBearerToken(ctx.switchToHttp().getRequest<Request>().headers.authorization);
    const req = ctx.switchToHttp().getRequest<Request & { user?: Principal }>();
    req.user = await this.tokens.authenticate(req.headers.authorization);
    return true;
  }
}
