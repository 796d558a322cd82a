import { Injectable, OnModuleInit } from '@nestjs/common';
import { ProblemException } from '@vault/platform';
import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';
import { DeveloperEnv } from '../config/developer.env';

/** Table created by the migration, in the shape rate-limiter-flexible expects. */
export const THROTTLE_TABLE = 'auth_throttle';

/** Throttle key of one login identity: a digest, so any username fits the key column. */
export function loginKey(
  tenantId: string,
  clientId: string,
  username: string,
): string {
  return createHash('sha256')
    .update(JSON.stringify([tenantId, clientId, username.trim().toLowerCase()]))
    .digest('hex');
}

export interface LoginAttempt {
  userKey: string;
  ip: string;
}

/**
 * Counts login attempts per (tenant, client, username) and per client IP in
 * PostgreSQL (shared by every replica; fixed window of AUTH_FAILURE_WINDOW_SECONDS).
 * Every attempt is counted up front (atomic, so parallel guesses cannot slip
 * through); a success then removes the user's own count and gives back the
 * IP's point, so only failures remain counted.
 */
@Injectable()
export class LoginThrottle implements OnModuleInit {
  private perUser!: RateLimiterPostgres;
  private perIp!: RateLimiterPostgres;

  constructor(
    private readonly env: DeveloperEnv,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    const store = {
      storeClient: this.dataSource,
      storeType: 'typeorm',
      tableName: THROTTLE_TABLE,
      tableCreated: true,
      duration: this.env.AUTH_FAILURE_WINDOW_SECONDS,
    };
    this.perUser = new RateLimiterPostgres({
      ...store,
      keyPrefix: 'user',
      points: this.env.AUTH_MAX_FAILURES,
    });
    this.perIp = new RateLimiterPostgres({
      ...store,
      keyPrefix: 'ip',
      points: this.env.AUTH_MAX_FAILURES_PER_IP,
    });
  }

  /** Counts an attempt; throws 429 (Retry-After) when either limit is already used up. */
  async begin(attempt: LoginAttempt): Promise<void> {
    const results = await Promise.allSettled([
      this.perUser.consume(attempt.userKey),
      this.perIp.consume(attempt.ip),
    ]);
    let waitMs = 0;
    for (const r of results) {
      if (r.status === 'fulfilled') continue;
      if (!(r.reason instanceof RateLimiterRes)) throw r.reason;
      waitMs = Math.max(waitMs, r.reason.msBeforeNext);
    }
    if (waitMs > 0 || results.some((r) => r.status === 'rejected')) {
      throw ProblemException.tooManyRequests(
        waitMs / 1000,
        'Too many failed sign-in attempts; retry later.',
      );
    }
  }

  /** A success: the user's own failures are forgiven; the IP keeps only its failures. */
  async succeeded(attempt: LoginAttempt): Promise<void> {
    await Promise.all([
      this.perUser.delete(attempt.userKey),
      this.perIp.reward(attempt.ip, 1),
    ]);
  }
}
