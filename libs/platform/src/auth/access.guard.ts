import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ProblemException } from '../errors/problem.exception';
import { ACCESS_RULE, AccessRule } from './access.decorators';

/**
 * Global guard, deny by default: a route without a declared access rule is
 * refused; `public` routes pass; every other rule needs a valid bearer token.
 * Domain rules (vault roles...) are checked afterwards by the owning service.
 */
@Injectable()
export class AccessGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(ctx: ExecutionContext) {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [
      ctx.getHandler(),
      ctx.getClass(),
    ]);
    if (rule === undefined) {
      throw ProblemException.forbidden('This operation is not available.');
    }
    if (rule === 'public') return true;
    return super.canActivate(ctx);
  }

  override handleRequest<T>(err: unknown, user: T, info: unknown): T {
    if (err instanceof ProblemException) throw err;
    if (err || !user) {
      const reason = info instanceof Error ? info.name : '';
      throw ProblemException.unauthorized(
        reason === 'TokenExpiredError'
          ? 'The access token has expired.'
          : 'A valid access token is required.',
      );
    }
    return user;
  }
}
