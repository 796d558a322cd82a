import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { purgeExpiredIdempotencyKeys } from './idempotency-store';

/** How often keys whose 24 h window ended are deleted. */
export const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Deletes expired Idempotency-Key rows periodically (a database without the table is
 * skipped). Expired rows are ignored by the claim anyway; this only bounds the table.
 */
@Injectable()
export class IdempotencyKeysJanitor implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger('Idempotency');
  private timer?: NodeJS.Timeout;

  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.purge(), IDEMPOTENCY_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async purge(): Promise<number> {
    try {
      return await purgeExpiredIdempotencyKeys(this.ds);
    } catch (err) {
      this.log.warn(`deleting expired idempotency keys failed, retrying later: ${String(err)}`);
      return 0;
    }
  }
}
