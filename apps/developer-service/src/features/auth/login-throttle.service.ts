import { Injectable, OnModuleInit } from '@nestjs/common';
import { loginThrottleRefusals } from '@vault/platform/observability';
import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DeveloperEnv } from '../../config/developer.env';
import { AuthThrottleStore } from '../../persistence/auth-throttle/auth-throttle.store';
import { tooManySignInAttempts } from './auth.errors';

/**
 * The numbers of the policy that are not settings (docs/developer-api.md,
 * "Throttling of failed sign-ins").
 */
export const LOGIN_POLICY = {
  /** First delay once a (user, address) pair has used its free failures, doubled at each further failure. */
  firstDelaySeconds: 1,
  /** Longest delay between two attempts of one pair. */
  maxDelaySeconds: 900,
  /** How long a pair's attempts are remembered (from its first failure; a success forgets them). */
  pairWindowSeconds: 86400,
  /** Failures of one user from all addresses together in a (fixed) hour before every attempt is refused. */
  userCeiling: 100,
  userCeilingWindowSeconds: 3600,
} as const;

/** Throttle key of one login identity: a digest, so any username fits the key column. */
export function loginKey(tenantId: string, clientId: string, username: string): string {
  return digest([tenantId, clientId, username.trim().toLowerCase()]);
}

function digest(parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

export interface LoginAttempt {
  userKey: string;
  ip: string;
  /** The device id of a valid device cookie for this login (DeviceCookies), if the client has one. */
  device?: string;
}

/** Which throttle an attempt went through: a known device's, or the one of unknown clients. */
export type Trust = 'device' | 'unknown';

/**
 * Seconds a pair waits after its `attempt`-th attempt in the window (1-based),
 * when `free` attempts are free: 0 up to free - 1, then 1, 2, 4… capped.
 */
export function pairDelaySeconds(attempt: number, free: number): number {
  if (attempt < free) return 0;
  const doublings = Math.min(attempt - free, 30);
  return Math.min(LOGIN_POLICY.maxDelaySeconds, LOGIN_POLICY.firstDelaySeconds * 2 ** doublings);
}

/**
 * Throttles sign-in attempts in PostgreSQL (shared by every replica), checked in
 * this order, each refusal a 429 with Retry-After that spends nothing further:
 *
 * 1. per client address, across users (credential stuffing): AUTH_MAX_FAILURES_PER_IP
 *    attempts per AUTH_FAILURE_WINDOW_SECONDS;
 * 2. per (user, address) pair: AUTH_MAX_FAILURES free attempts, then each attempt
 *    must wait a delay that doubles (1 s, 2 s, 4 s… up to 15 min) since the previous one,
 *    counted for a day from the pair's first failure;
 * 3. per user across all addresses, the last resort: 100 attempts per hour.
 *
 * Every attempt is counted up front (atomic increments, so parallel guesses cannot
 * slip past a limit); a refused attempt gives back what it counted, and a success
 * forgets its pair and gives back its address and user points, so only failures
 * stay counted.
 *
 * All of that is for unknown clients. A client presenting a valid device cookie of the
 * login (DeviceCookies: it signed in as this user before) is throttled by its device id
 * alone: AUTH_DEVICE_MAX_FAILURES failures per AUTH_FAILURE_WINDOW_SECONDS, after which
 * the cookie counts for nothing and the client is an unknown one (OWASP's device-cookie
 * scheme). Strangers failing the password, from any number of addresses, cannot lock
 * the user out of the devices it used before.
 */
@Injectable()
export class LoginThrottle implements OnModuleInit {
  private perIp!: RateLimiterPostgres;
  /** Attempts of a pair in the window (never refuses by itself). */
  private pairAttempts!: RateLimiterPostgres;
  /** Held while a pair must wait: one point, its expiry the earliest next attempt. */
  private pairGate!: RateLimiterPostgres;
  private perUser!: RateLimiterPostgres;
  /** Failures with one device cookie (keyed by its device id). */
  private perDevice!: RateLimiterPostgres;

  constructor(
    private readonly env: DeveloperEnv,
    private readonly store: AuthThrottleStore,
  ) {}

  onModuleInit(): void {
    const limiter = this.store.limiter.bind(this.store);
    const window = this.env.AUTH_FAILURE_WINDOW_SECONDS;
    this.perIp = limiter('ip', this.env.AUTH_MAX_FAILURES_PER_IP, window);
    this.pairAttempts = limiter('pair', 2 ** 30, LOGIN_POLICY.pairWindowSeconds);
    this.pairGate = limiter('pair-wait', 1, LOGIN_POLICY.maxDelaySeconds);
    this.perUser = limiter('user-ceiling', LOGIN_POLICY.userCeiling, LOGIN_POLICY.userCeilingWindowSeconds);
    this.perDevice = limiter('device', this.env.AUTH_DEVICE_MAX_FAILURES, window);
  }

  /**
   * Counts an attempt; throws 429 (Retry-After) when a limit refuses it, counting nothing.
   * A known device within its budget goes through its own count only.
   */
  async begin(attempt: LoginAttempt): Promise<Trust> {
    if (attempt.device && (await outcome(this.perDevice.consume(attempt.device))).allowed) return 'device';
    await this.beginUnknown(attempt);
    return 'unknown';
  }

  private async beginUnknown(attempt: LoginAttempt): Promise<void> {
    const pair = pairKey(attempt);
    const undo: Array<() => Promise<unknown>> = [];
    const refuse = async (res: RateLimiterRes, limit: 'ip' | 'pair' | 'user'): Promise<never> => {
      loginThrottleRefusals.inc({ limit });
      for (const step of undo.reverse()) await step();
      throw tooManySignInAttempts(res.msBeforeNext / 1000);
    };

    // 1. The address, across users: refused here, nothing of the user is spent.
    const ip = await outcome(this.perIp.consume(attempt.ip));
    undo.push(() => this.perIp.reward(attempt.ip, 1));
    if (!ip.allowed) return refuse(ip.res, 'ip');

    // 2. The pair: its n-th attempt holds the gate for the delay owed after it.
    const n = (await this.pairAttempts.penalty(pair, 1)).consumedPoints;
    undo.push(() => this.pairAttempts.reward(pair, 1));
    const delay = pairDelaySeconds(n, this.env.AUTH_MAX_FAILURES);
    if (delay > 0) {
      const gate = await outcome(this.pairGate.consume(pair, 1, { customDuration: delay }));
      if (!gate.allowed) return refuse(gate.res, 'pair');
      undo.push(() => this.pairGate.delete(pair));
    } else {
      const held = await this.pairGate.get(pair);
      if (held && held.consumedPoints > 0 && held.msBeforeNext > 0) {
        return refuse(held, 'pair');
      }
    }

    // 3. The user across all addresses, the last resort.
    const user = await outcome(this.perUser.consume(attempt.userKey));
    undo.push(() => this.perUser.reward(attempt.userKey, 1));
    if (!user.allowed) return refuse(user.res, 'user');
  }

  /**
   * A success: a known device's count starts afresh; for an unknown client the pair starts
   * afresh, and the address and the user keep only their failures.
   */
  async succeeded(attempt: LoginAttempt, trust: Trust): Promise<void> {
    if (trust === 'device' && attempt.device) {
      await this.perDevice.delete(attempt.device);
      return;
    }
    const pair = pairKey(attempt);
    await Promise.all([
      this.pairAttempts.delete(pair),
      this.pairGate.delete(pair),
      this.perIp.reward(attempt.ip, 1),
      this.perUser.reward(attempt.userKey, 1),
    ]);
  }
}

/** A limiter's answer: allowed or refused, store errors rethrown. */
async function outcome(consumed: Promise<RateLimiterRes>): Promise<{ allowed: boolean; res: RateLimiterRes }> {
  try {
    return { allowed: true, res: await consumed };
  } catch (err) {
    if (err instanceof RateLimiterRes) return { allowed: false, res: err };
    throw err;
  }
}

export function pairKey(attempt: LoginAttempt): string {
  return digest([attempt.userKey, attempt.ip]);
}
