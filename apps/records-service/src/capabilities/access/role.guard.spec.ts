import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProblemException } from '@vault/platform/errors';
import type { AccessService } from './access.service';
import { RoleGuard } from './role.guard';

/** The guard with a route declaring `rule` and a request of these headers and user. */
async function refusalOf(rule: string, request: { headers: Record<string, string>; user?: unknown }): Promise<unknown> {
  const reflector = { getAllAndOverride: () => rule } as unknown as Reflector;
  const access = { authorize: () => Promise.reject(new Error('not reached')) } as unknown as AccessService;
  const ctx = {
    getHandler: () => undefined,
    getClass: () => undefined,
    switchToHttp: () => ({ getRequest: () => ({ params: {}, ...request }) }),
  } as unknown as ExecutionContext;
  try {
    await new RoleGuard(reflector, access).canActivate(ctx);
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('RoleGuard without an authenticated caller', () => {
  it('answers 401 with the RFC 6750 challenge, as the platform guard does', async () => {
    const err = await refusalOf('vault:viewer', { headers: {} });
    expect(err).toBeInstanceOf(ProblemException);
    const problem = err as ProblemException;
    expect(problem.getStatus()).toBe(401);
    expect(problem.headers?.['WWW-Authenticate']).toMatch(/^Bearer realm="[^"]+"$/);
  });

  it('names a malformed bearer header invalid_request', async () => {
    const problem = (await refusalOf('record:editor', { headers: { authorization: 'Bearer' } })) as ProblemException;
    expect(problem.getStatus()).toBe(401);
    expect(problem.headers?.['WWW-Authenticate']).toContain('error="invalid_request"');
  });
});
