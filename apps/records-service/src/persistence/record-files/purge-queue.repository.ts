import { Injectable } from '@nestjs/common';
import { LessThanOrEqual } from 'typeorm';
import { FilePurgeEntity } from './record-file.entity';
import { Transactions, Tx } from '@vault/platform/persistence';

/** Stored bytes queued for removal, each due at a time. */
@Injectable()
export class PurgeQueueRepository {
  constructor(private readonly tx: Transactions) {}

  async enqueue(storageKey: string, purgeAfter: Date): Promise<void> {
    await this.tx.none.getRepository(FilePurgeEntity).insert({ storageKey, purgeAfter });
  }

  /** Takes the key off the queue; returns whether it was still queued. */
  async dequeue(storageKey: string, tx: Tx = this.tx.none): Promise<boolean> {
    const result = await tx.delete(FilePurgeEntity, { storageKey });
    return result.affected === 1;
  }

  /** Makes a queued removal due now; returns whether the key was queued (a committed file's key is not). */
  async dueNow(storageKey: string, tx: Tx = this.tx.none): Promise<boolean> {
    const result = await tx.update(FilePurgeEntity, { storageKey }, { purgeAfter: new Date() });
    return result.affected === 1;
  }

  /**
   * Locks up to `limit` due entries (oldest first), skipping those another instance
   * holds; only `storageKey` when given.
   */
  lockDue(tx: Tx, limit: number, storageKey?: string): Promise<FilePurgeEntity[]> {
    return tx.find(FilePurgeEntity, {
      where: { purgeAfter: LessThanOrEqual(new Date()), ...(storageKey ? { storageKey } : {}) },
      order: { purgeAfter: 'ASC' },
      take: limit,
      lock: { mode: 'pessimistic_write', onLocked: 'skip_locked' },
    });
  }
}
