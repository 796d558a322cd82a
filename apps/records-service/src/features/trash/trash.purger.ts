import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { TrashItemKind } from '@vault/contracts';
import { Transactions } from '@vault/platform/persistence';
import { PeriodicTask } from '@vault/platform/runtime';
import { ItemPurger } from '../../capabilities/retention/item-purger';
import { RetentionService } from '../../capabilities/retention/retention.service';
import { systemActor } from '../../capabilities/retention/trash-events';
import { TrashEnv } from '../../capabilities/retention/trash.env';
import { TrashRepository } from '../../persistence/trash/trash.repository';

/** Items one transaction purges at most. */
const BATCH = 20;
/** How long a held item waits before the purger looks at it again. */
const HOLD_RECHECK_MS = 24 * 60 * 60 * 1000;
/** Files first, then records, then vaults: a small item never waits behind a large one. */
const KINDS: TrashItemKind[] = ['file', 'record', 'vault'];

/**
 * The trash's background purger (docs/records-api.md, Trash): every TRASH_PURGE_INTERVAL_MS
 * it purges the trashed items whose purgeAt has come. Instances share the work: each batch
 * locks its rows FOR UPDATE SKIP LOCKED, so two instances never take the same item. Each
 * batch is one transaction (rows deleted, `*.purged` written, bytes queued together), so a
 * process killed at any step leaves every item either whole in the trash or gone. An item a
 * legal hold or the retention period covers gets a later purgeAt (the retention date, or a
 * day later for a hold) instead. File versions the version limit trashed are purged the
 * same way (no event: the file stays).
 */
@Injectable()
export class TrashPurger implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('TrashPurger');
  private readonly task: PeriodicTask;

  constructor(
    private readonly env: TrashEnv,
    private readonly tx: Transactions,
    private readonly trash: TrashRepository,
    private readonly purger: ItemPurger,
    private readonly retention: RetentionService,
  ) {
    this.task = new PeriodicTask('trash purge', env.TRASH_PURGE_INTERVAL_MS, () => this.purgeDue(), this.logger);
  }

  onModuleInit(): void {
    if (this.env.TRASH_PURGER === 'inline') this.task.start();
  }

  onModuleDestroy(): void {
    this.task.stop();
  }

  /** Purges every item due at `now`; how many were purged and how many postponed. */
  async purgeDue(now = new Date()): Promise<{ purged: number; postponed: number }> {
    const total = { purged: 0, postponed: 0 };
    for (const kind of KINDS) {
      for (;;) {
        const batch = await this.tx.run(async (tx) => {
          const ids = await this.trash.lockDue(tx, kind, now, BATCH);
          const done = { purged: 0, postponed: 0, seen: ids.length };
          for (const id of ids) {
            const outcome = await this.purger.purge(tx, kind, id, (rows) => systemActor(rows.vault.tenantId));
            if (outcome.purged) {
              done.purged++;
              continue;
            }
            const at = 'until' in outcome.blocker ? outcome.blocker.until : new Date(now.getTime() + HOLD_RECHECK_MS);
            await this.trash.postpone(tx, kind, id, at);
            done.postponed++;
          }
          return done;
        });
        total.purged += batch.purged;
        total.postponed += batch.postponed;
        if (batch.seen < BATCH) break;
      }
    }
    await this.purgeDueVersions(now, total);
    if (total.purged + total.postponed > 0) this.logger.log(`trash: ${total.purged} purged, ${total.postponed} postponed`);
    return total;
  }

  /** File versions the version limit moved to the trash (docs/files.md, Versions), under the same checks. */
  private async purgeDueVersions(now: Date, total: { purged: number; postponed: number }): Promise<void> {
    for (;;) {
      const seen = await this.tx.run(async (tx) => {
        const due = await this.trash.lockDueVersions(tx, now, BATCH);
        for (const v of due) {
          const blocker = await this.retention.blocker(tx, { vaultId: v.vaultId, recordId: v.recordId, fileId: v.fileId }, now);
          const later = blocker && ('until' in blocker ? blocker.until : new Date(now.getTime() + HOLD_RECHECK_MS));
          await this.trash.purgeVersion(tx, v.id, later ?? undefined);
          total[later ? 'postponed' : 'purged']++;
        }
        return due.length;
      });
      if (seen < BATCH) return;
    }
  }
}
