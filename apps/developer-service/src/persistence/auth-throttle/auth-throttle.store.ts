import { Injectable } from '@nestjs/common';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { DataSource } from 'typeorm';

/** Table created by the migration, in the shape rate-limiter-flexible expects. */
const THROTTLE_TABLE = 'auth_throttle';

/** The sign-in throttle's counters, in PostgreSQL so that every replica shares them. */
@Injectable()
export class AuthThrottleStore {
  constructor(private readonly ds: DataSource) {}

  /** A counter of `points` per `durationSeconds` for the keys under `keyPrefix` (atomic increments). */
  limiter(keyPrefix: string, points: number, durationSeconds: number): RateLimiterPostgres {
    return new RateLimiterPostgres({
      storeClient: this.ds,
      storeType: 'typeorm',
      tableName: THROTTLE_TABLE,
      tableCreated: true,
      keyPrefix,
      points,
      duration: durationSeconds,
    });
  }
}
