import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { SUBJECTS, VaultChangedEvent } from '@vault/contracts';
import { PeriodicTask } from '@vault/platform/runtime';
import { eventBase } from '../../capabilities/events/event-payload';
import { EventPublisher } from '../../capabilities/events/event-publisher';
import { ItemPurger } from '../../capabilities/retention/item-purger';
import { Transactions } from '@vault/platform/persistence';
import { VaultRepository } from '../../persistence/vaults/vault.repository';

/** How often each instance looks for due removals, and how many vaults one transaction removes. */
const CHECK_INTERVAL_MS = 10 * 60 * 1000;
const BATCH = 20;
/** How long a vault a legal hold keeps waits before it is looked at again. */
const HOLD_RECHECK_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the vaults scheduled for removal once their time has come (a deleted owner's
 * vaults nobody else holds a role on, docs/user-api.md, Account deletion), as `DELETE`
 * of a vault does: its records, memberships and licences go with it, its files' bytes
 * are queued for removal, and `vault.deleted` then `vault.purged` are published. A legal
 * hold or the plan's retention period postpones the removal (docs/records-api.md, Retention
 * and legal holds). Instances share the work (locked rows are skipped).
 */
@Injectable()
export class VaultDeletionPurger implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('VaultDeletion');
  private readonly task = new PeriodicTask('scheduled vault removal', CHECK_INTERVAL_MS, () => this.purgeDue(), this.logger);

  constructor(
    private readonly tx: Transactions,
    private readonly vaults: VaultRepository,
    private readonly events: EventPublisher,
    private readonly purger: ItemPurger,
  ) {}

  onModuleInit(): void {
    this.task.start();
  }

  onModuleDestroy(): void {
    this.task.stop();
  }

  /** Removes every vault whose removal is due at `now` (the clock's `Date.now()` by default); how many. */
  async purgeDue(now = new Date(Date.now())): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = await this.tx.run(async (tx) => {
        const due = await this.vaults.lockDueForDeletion(tx, now, BATCH);
        for (const vault of due) {
          const actor = { tenantId: vault.tenantId, openId: 'system', username: 'system (owner account deleted)' };
          const event: VaultChangedEvent = { ...eventBase(actor, vault), changedFields: [] };
          const outcome = await this.purger.purge(tx, 'vault', vault.id, actor, async () => {
            await this.events.publish(tx, SUBJECTS.vaultDeleted, event);
          });
          if (outcome.purged) continue;
          const later = 'until' in outcome.blocker ? outcome.blocker.until : new Date(now.getTime() + HOLD_RECHECK_MS);
          await this.vaults.postponeDeletion(tx, vault.id, later);
        }
        return due.length;
      });
      removed += batch;
      if (batch > 0) this.logger.log(`${batch} vaults of deleted owners removed`);
      if (batch < BATCH) return removed;
    }
  }
}
