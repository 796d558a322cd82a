import { GatewayRateLimiter, RateLimits } from './rate-limiter';
import type { TokenIdentity } from './token-identity';

const LIMITS: RateLimits = { caller: 3, tenant: 5, address: 8, anonymous: 2 };
const caller = (tenant: string, subject: string): TokenIdentity => ({ tenant, subject });

function run(limiter: GatewayRateLimiter, who: TokenIdentity | undefined, ip: string, n: number): boolean[] {
  return Array.from({ length: n }, () => limiter.check(who, ip).allowed);
}

describe('GatewayRateLimiter', () => {
  // Each test counts within one one-minute window.
  beforeEach(async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 1000) await new Promise((r) => setTimeout(r, left + 20));
  });

  it('gives each caller its own budget within its tenant budget', () => {
    const limiter = new GatewayRateLimiter(LIMITS);
    expect(run(limiter, caller('acme', 'ann'), '10.0.0.1', 4)).toEqual([true, true, true, false]);
    // Bob has his own 3, but the tenant has only 2 of its 5 left.
    expect(run(limiter, caller('acme', 'bob'), '10.0.0.2', 3)).toEqual([true, true, false]);
    const refused = limiter.check(caller('acme', 'cy'), '10.0.0.3');
    expect(refused.allowed).toBe(false);
    expect(refused.headers['ratelimit']).toMatch(/^"tenant";r=0;t=\d+$/);
    // Another tenant is untouched, and the same subject in another tenant is another caller.
    expect(run(limiter, caller('globex', 'ann'), '10.0.0.1', 3)).toEqual([true, true, true]);
  });

  it('limits requests without a token per address, and every request per address', () => {
    const limiter = new GatewayRateLimiter(LIMITS);
    expect(run(limiter, undefined, '10.0.0.9', 3)).toEqual([true, true, false]);
    expect(run(limiter, undefined, '10.0.0.8', 2)).toEqual([true, true]);
    // Identities invented at one address share its ceiling of 8 (2 already spent without a token).
    const forged = Array.from({ length: 8 }, (_, i) => limiter.check(caller(`t${i}`, `s${i}`), '10.0.0.9').allowed);
    expect(forged).toEqual([true, true, true, true, true, true, false, false]);
    expect(limiter.check(caller('t0', 's0'), '10.0.0.7').allowed).toBe(true);
  });

  it('describes every budget that applied and the one closest to exhaustion', () => {
    const limiter = new GatewayRateLimiter({ caller: 600, tenant: 6000, address: 12000, anonymous: 300 });
    const first = limiter.check(caller('acme', 'ann'), '10.0.0.1');
    expect(first.headers['ratelimit-policy']).toBe('"caller";q=600;w=60, "tenant";q=6000;w=60, "address";q=12000;w=60');
    const [, r, t] = /^"caller";r=(\d+);t=(\d+)$/.exec(first.headers['ratelimit']) ?? [];
    expect(Number(r)).toBe(599);
    expect(Number(t)).toBeGreaterThanOrEqual(1);
    expect(Number(t)).toBeLessThanOrEqual(60);
    const anonymous = limiter.check(undefined, '10.0.0.1');
    expect(anonymous.headers['ratelimit-policy']).toBe('"anonymous";q=300;w=60, "address";q=12000;w=60');
    expect(anonymous.headers['ratelimit']).toMatch(/^"anonymous";r=299;t=\d+$/);
  });

  it('refuses with Retry-After at the end of the window and counts nothing refused', () => {
    const limiter = new GatewayRateLimiter({ ...LIMITS, anonymous: 1 });
    expect(limiter.check(undefined, '10.0.0.1').allowed).toBe(true);
    const refused = limiter.check(undefined, '10.0.0.1');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBe(Number(/t=(\d+)/.exec(refused.headers['ratelimit'])?.[1]));
    expect(refused.headers['ratelimit']).toMatch(/^"anonymous";r=0;/);
    // The refused request did not spend the address budget: 7 of 8 are left for tokens.
    expect(run(limiter, caller('a', 'b'), '10.0.0.1', 3)).toEqual([true, true, true]);
  });

  it('moves a request whose token a module refused from the caller and tenant to the address', () => {
    const limiter = new GatewayRateLimiter(LIMITS);
    for (let i = 0; i < 3; i++) limiter.tokenRefused(limiter.check(caller('acme', 'ann'), '10.6.6.6'));
    // The forger spent nothing of ann's budget nor acme's...
    expect(run(limiter, caller('acme', 'ann'), '10.0.0.1', 4)).toEqual([true, true, true, false]);
    // ...but its address's unauthenticated budget (2) is gone.
    expect(limiter.check(undefined, '10.6.6.6').allowed).toBe(false);
  });

  it('applies no budget set to 0 and sends no headers when none applies', () => {
    const limiter = new GatewayRateLimiter({ caller: 0, tenant: 0, address: 0, anonymous: 0 });
    const all = Array.from({ length: 50 }, () => limiter.check(caller('a', 'b'), '10.0.0.1'));
    expect(all.every((d) => d.allowed && Object.keys(d.headers).length === 0)).toBe(true);
  });
});
