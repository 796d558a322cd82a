import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Principal } from '@vault/contracts';
import { ACCESS_RULE, AccessRule, missingBearerToken } from '@vault/platform/auth';
import type { Request } from 'express';
import { operationUnavailable } from './access.errors';
import { AccessService, VaultAccess } from './access.service';
import { parseRule } from './roles';

export type RequestWithAccess = Request & { user?: Principal; vaultAccess?: VaultAccess };

/**
 * Enforces `vault:<level>` and `record:<level>` rules after the platform guard has
 * authenticated the caller: resolves vaultId/recordId of the path and the caller's
 * roles, then hands the resolved access to the handler (see @ResolvedAccess()).
 */
@Injectable()
export class RoleGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly access: AccessService,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const declared = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [ctx.getHandler(), ctx.getClass()]);
    const rule = parseRule(declared);
    if (!rule) {
      if (declared === 'public' || declared === 'optional' || declared === 'authenticated') return true;
      throw operationUnavailable();
    }
    const req = ctx.switchToHttp().getRequest<RequestWithAccess>();
    // normally refused before, by the platform's guard: the same 401 with its challenge
    if (!req.user) throw missingBearerToken(req.headers.authorization);
    req.vaultAccess = await this.access.authorize(req.user, rule, req.params['vaultId'], req.params['recordId']);
    return true;
  }
}
