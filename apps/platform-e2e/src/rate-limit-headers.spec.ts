import { call, Reply, tokenFor } from '../support/client';

/** `"<policy>";r=<n>;t=<s>` of the RateLimit field. */
function rateLimit(reply: Reply): { policy: string; r: number; t: number } {
  const m = /^"([a-z]+)";r=(\d+);t=(\d+)$/.exec(String(reply.headers['ratelimit']));
  if (!m) throw new Error(`no RateLimit field: ${String(reply.headers['ratelimit'])}`);
  return { policy: m[1], r: Number(m[2]), t: Number(m[3]) };
}

/** The same claims with a signature nobody made: the gateway reads it, the modules refuse it. */
function forged(token: string): string {
  const [header, payload] = token.split('.');
  return `${header}.${payload}.${Buffer.alloc(64, 7).toString('base64url')}`;
}

/** The gateway's rate limits as clients see them on real module answers (docs/gateway.md, Rate limits). */
describe('rate-limit headers through the gateway', () => {
  let token: string;

  beforeAll(async () => {
    token = await tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'hal@alpha.example', 'hal-password-1');
  });
  // Every count below is read within one one-minute window.
  beforeEach(async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 10_000) await new Promise((r) => setTimeout(r, left + 100));
  });

  it("names the caller's budgets on a module's answer and counts each request once", async () => {
    const first = await call('records', 'GET', '/vault/check-email?emailUsername=rate-limit-e2e', { token });
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"caller";q=600;w=60, "tenant";q=6000;w=60, "address";q=12000;w=60');
    const before = rateLimit(first);
    expect(before.policy).toBe('caller');
    expect(before.t).toBeGreaterThanOrEqual(1);
    expect(before.t).toBeLessThanOrEqual(60);

    const vaults = await call('records', 'GET', '/vault/check-email?emailUsername=rate-limit-e2e', { token });
    expect(vaults.status).toBe(200);
    expect(rateLimit(vaults)).toMatchObject({
      policy: 'caller',
      r: before.r - 1,
    });
  });

  it('names the unauthenticated budget of the address on a public answer (the signing keys)', async () => {
    const jwks = await call('developer', 'GET', '/api/v1/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.headers['ratelimit-policy']).toBe('"anonymous";q=300;w=60, "address";q=12000;w=60');
    expect(rateLimit(jwks).policy).toBe('anonymous');
  });

  it('does not spend the budget of the identity a refused token names', async () => {
    const before = rateLimit(await call('records', 'GET', '/vault/check-email?emailUsername=rate-limit-e2e', { token }));
    for (let i = 0; i < 3; i++) {
      const refused = await call('records', 'GET', '/vault/check-email?emailUsername=rate-limit-e2e', { token: forged(token) });
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({
        status: 401,
        requestId: refused.headers['x-request-id'],
      });
      expect(refused.headers['ratelimit-policy']).toMatch(/^"caller";q=600;w=60/);
    }
    const after = rateLimit(await call('records', 'GET', '/vault/check-email?emailUsername=rate-limit-e2e', { token }));
    expect(after).toMatchObject({ policy: 'caller', r: before.r - 1 });
  });
});
