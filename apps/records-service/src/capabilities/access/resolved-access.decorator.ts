import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { VaultAccess } from './access.service';
import type { RequestWithAccess } from './role.guard';

/** The vault (and record) RoleGuard resolved for this request, with the caller's roles. */
export const ResolvedAccess = createParamDecorator((_: unknown, ctx: ExecutionContext): VaultAccess => {
  const access = ctx.switchToHttp().getRequest<RequestWithAccess>().vaultAccess;
  if (!access) throw new Error('RoleGuard did not run for this route');
  return access;
});
