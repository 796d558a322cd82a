import { createHash } from 'node:crypto';
import type { TokenIdentity } from './token-identity';
import { WINDOW_MS, WindowCounters } from './window-counters';

/**
 * The budgets, each per minute; 0 turns one off.
 * - caller: per authenticated caller (tenant + subject of the bearer token)
 * - tenant: per tenant, all its callers together
 * - address: per client address, every request (the ceiling on identities one address can name)
 * - anonymous: per client address, requests without a readable token (and those whose token a module refused)
 */
export interface RateLimits {
  caller: number;
  tenant: number;
  address: number;
  anonymous: number;
}

export type PolicyName = keyof RateLimits;

interface Charge {
  policy: PolicyName;
  key: string;
  quota: number;
  /** Requests left after this one (0 when refused). */
  remaining: number;
}

/** What the limiter decided for one request, and the headers that say so. */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until the refusing budget refills (Retry-After), when refused. */
  retryAfter?: number;
  /** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers), when any budget applies. */
  headers: Record<string, string>;
  /** Filled in for allowed requests: where they were counted. */
  window: number;
  charges: Charge[];
  clientIp: string;
}

const WINDOW_SECONDS = WINDOW_MS / 1000;

/**
 * Fixed one-minute windows per caller, tenant and client address, counted in
 * WindowCounters (shared between gateway processes when a store is attached).
 * A request is allowed when every budget that applies to it has room; it is
 * then counted against all of them. Refused requests are not counted.
 */
export class GatewayRateLimiter {
  constructor(
    private readonly limits: RateLimits,
    readonly counters = new WindowCounters(),
  ) {}

  check(identity: TokenIdentity | undefined, clientIp: string): RateDecision {
    const now = Date.now();
    const window = WindowCounters.windowOf(now);
    const reset = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    const applicable: Array<[PolicyName, string]> = identity
      ? [
          ['caller', `${identity.tenant}\n${identity.subject}`],
          ['tenant', identity.tenant],
          ['address', clientIp],
        ]
      : [
          ['anonymous', clientIp],
          ['address', clientIp],
        ];
    const charges: Charge[] = [];
    let refused: Charge | undefined;
    for (const [policy, id] of applicable) {
      const quota = this.limits[policy];
      if (quota <= 0) continue;
      const key = counterKey(policy, id);
      const used = this.counters.total(window, key);
      const charge = { policy, key, quota, remaining: Math.max(0, quota - used - 1) };
      if (used >= quota) {
        charge.remaining = 0;
        refused ??= charge;
      }
      charges.push(charge);
    }
    if (!refused) for (const c of charges) this.counters.add(window, c.key, 1);
    return {
      allowed: !refused,
      retryAfter: refused ? reset : undefined,
      headers: rateLimitHeaders(charges, refused, reset),
      window,
      charges: refused ? [] : charges,
      clientIp,
    };
  }

  /**
   * A module refused the request's token (401): the request was not the
   * caller's, so it is taken back from the caller and tenant budgets and
   * counted as unauthenticated from its address instead. A forged token thus
   * costs the identity it names nothing once answered.
   */
  tokenRefused(decision: RateDecision): void {
    const identityCharges = decision.charges.filter((c) => c.policy === 'caller' || c.policy === 'tenant');
    if (!identityCharges.length) return;
    for (const c of identityCharges) this.counters.add(decision.window, c.key, -1);
    decision.charges = decision.charges.filter((c) => !identityCharges.includes(c));
    if (this.limits.anonymous > 0) this.counters.add(decision.window, counterKey('anonymous', decision.clientIp), 1);
  }
}

/** `<policy>.<hash>`: a KV-safe key that does not carry the token's claims or the address in clear. */
function counterKey(policy: PolicyName, id: string): string {
  return `${policy}.${createHash('sha256').update(id).digest('base64url').slice(0, 22)}`;
}

/**
 * RateLimit-Policy lists every budget that applied to the request; RateLimit
 * names the one closest to exhaustion (fewest requests left; the refusing one
 * on a 429), with its remaining requests and the seconds until its window ends.
 */
function rateLimitHeaders(charges: Charge[], refused: Charge | undefined, reset: number): Record<string, string> {
  if (!charges.length) return {};
  const tightest = refused ?? charges.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  return {
    'ratelimit-policy': charges.map((c) => `"${c.policy}";q=${c.quota};w=${WINDOW_SECONDS}`).join(', '),
    ratelimit: `"${tightest.policy}";r=${tightest.remaining};t=${reset}`,
  };
}
