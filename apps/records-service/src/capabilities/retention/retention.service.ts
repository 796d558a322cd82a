import { Injectable } from '@nestjs/common';
import type { LegalHoldView, RetentionView, TrashItemKind } from '@vault/contracts';
import type { Tx } from '@vault/platform/persistence';
import { HoldRow, LegalHoldRepository, PurgeScope } from '../../persistence/legal-holds/legal-hold.repository';
import { LicensesService } from '../plans/licenses.service';
import { PlansService } from '../plans/plans.service';
import { heldBy, retainedUntil } from './retention.errors';
import { TrashEnv } from './trash.env';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Why a purge may not happen now: an active legal hold, or the plan's retention period until a date. */
export type PurgeBlocker = { hold: HoldRow } | { until: Date };

/** A hold as the API shows it. */
export function toHoldView(h: HoldRow): LegalHoldView {
  return {
    id: h.id,
    kind: h.fileId ? 'file' : h.recordId ? 'record' : 'vault',
    vaultId: h.vaultId,
    recordId: h.recordId,
    fileId: h.fileId,
    name: h.name,
    reason: h.reason,
    placedBy: h.placedBy,
    placedAt: h.placedAt.toISOString(),
    releasedBy: h.releasedBy,
    releasedAt: h.releasedAt?.toISOString() ?? null,
  };
}

/**
 * How long the trash keeps an item and what keeps it from purge (docs/records-api.md,
 * Retention and legal holds): the plan's `vault.trashDays` (TRASH_RETENTION_DAYS without
 * it), its `vault.retentionDays` counted from the newest creation among what a purge
 * removes, and the active legal holds covering it. Every purge asks `assertPurgeable` or
 * `blocker` first: by hand, when due, a vault of a deleted owner, a thinned file version.
 */
@Injectable()
export class RetentionService {
  constructor(
    private readonly env: TrashEnv,
    private readonly plans: PlansService,
    private readonly licenses: LicensesService,
    private readonly holds: LegalHoldRepository,
  ) {}

  /** When an item of the vault deleted now leaves the trash. */
  async purgeAt(tx: Tx, vaultId: string, now = new Date()): Promise<Date> {
    const plan = await this.licenses.planOf(vaultId, tx);
    const days = this.plans.optionalLimit(plan, 'vault.trashDays', this.env.TRASH_RETENTION_DAYS);
    return new Date(now.getTime() + days * DAY_MS);
  }

  async retentionDays(vaultId: string, tx?: Tx): Promise<number> {
    return this.plans.optionalLimit(await this.licenses.planOf(vaultId, tx), 'vault.retentionDays', 0);
  }

  /** The end of the retention period of what a purge of the scope removes; null when there is none. */
  async retainedUntil(scope: PurgeScope, tx?: Tx): Promise<Date | null> {
    const days = await this.retentionDays(scope.vaultId, tx);
    if (days === 0) return null;
    const newest = await this.holds.newestCreation(scope, tx);
    return newest ? new Date(new Date(newest).getTime() + days * DAY_MS) : null;
  }

  /** What keeps the scope from purge at `now`: the oldest active hold first, then the retention date. */
  async blocker(tx: Tx, scope: PurgeScope, now = new Date()): Promise<PurgeBlocker | null> {
    const [hold] = await this.holds.covering(scope, tx);
    if (hold) return { hold };
    const until = await this.retainedUntil(scope, tx);
    return until && until > now ? { until } : null;
  }

  /** Refuses (409 legal_hold or retention_period) a purge of the scope now. */
  async assertPurgeable(tx: Tx, scope: PurgeScope): Promise<void> {
    const blocked = await this.blocker(tx, scope);
    if (blocked && 'hold' in blocked) throw heldBy(blocked.hold);
    if (blocked) throw retainedUntil(blocked.until);
  }

  /** GET …/retention: what keeps the item, and until when. */
  async explain(
    kind: TrashItemKind,
    id: string,
    scope: PurgeScope,
    trash: { deletedAt: Date | null; purgeAt: Date | null },
  ): Promise<RetentionView> {
    const [holds, until, days] = await Promise.all([
      this.holds.covering(scope),
      this.retainedUntil(scope),
      this.retentionDays(scope.vaultId),
    ]);
    const retained = until !== null && until > new Date();
    return {
      kind,
      id,
      purgeBlocked: holds.length > 0 || retained,
      retainedUntil: until?.toISOString() ?? null,
      retentionDays: days,
      holds: holds.map(toHoldView),
      deletedAt: trash.deletedAt?.toISOString() ?? null,
      purgeAt: trash.purgeAt?.toISOString() ?? null,
    };
  }
}
