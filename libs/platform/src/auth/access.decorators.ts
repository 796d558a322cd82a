import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { Principal } from '@vault/contracts';

/** Metadata key holding the access rule every route must declare (deny by default). */
export const ACCESS_RULE = 'vault:access-rule';

/**
 * A route's access rule. `public`: no token. `optional`: open to anyone, and a caller who
 * sends a bearer token is authenticated (401 when it is not valid), so the answer may say
 * more to it. `authenticated`: any valid token, the service checks ownership itself. Other
 * strings name a domain rule (for example `vault:editor`) enforced by that service's own
 * guard after authentication.
 */
export type AccessRule = 'public' | 'optional' | 'authenticated' | `${string}:${string}`;

export const Access = (rule: AccessRule) => SetMetadata(ACCESS_RULE, rule);
export const Public = () => Access('public');
export const OptionallyAuthenticated = () => Access('optional');
export const Authenticated = () => Access('authenticated');

/** The verified caller of the current request. */
export const CurrentPrincipal = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Principal => ctx.switchToHttp().getRequest().user as Principal,
);
