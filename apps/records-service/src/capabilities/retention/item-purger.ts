import { Injectable } from '@nestjs/common';
import type { TrashItemKind } from '@vault/contracts';
import type { Tx } from '@vault/platform/persistence';
import { ItemRows, TrashRepository } from '../../persistence/trash/trash.repository';
import { CryptoEraseService } from '../encryption/crypto-erase.service';
import { PurgeBlocker, RetentionService } from './retention.service';
import { TrashActor, TrashEvents } from './trash-events';

/** What a purge did: removed the item, or left it because of a hold or the retention period. */
export type PurgeOutcome = { purged: true } | { purged: false; blocker: PurgeBlocker };

/**
 * Removes an item for good, in the caller's transaction, unless a legal hold or the plan's
 * retention period covers it: `*.purged` is written to the outbox and the row deleted in
 * the same transaction (children go by foreign key; bytes through the purge queue, whose
 * rows commit with it), so a crash at any point leaves the item either whole or gone.
 * The caller holds the item's row lock.
 */
@Injectable()
export class ItemPurger {
  constructor(
    private readonly trash: TrashRepository,
    private readonly retention: RetentionService,
    private readonly events: TrashEvents,
    private readonly cryptoErase: CryptoEraseService,
  ) {}

  async purge(
    tx: Tx,
    kind: TrashItemKind,
    id: string,
    actor: TrashActor | ((rows: ItemRows) => TrashActor),
    beforeDelete?: (rows: ItemRows) => Promise<void>,
  ): Promise<PurgeOutcome> {
    const rows = await this.trash.rowsOf(tx, kind, id);
    if (!rows) return { purged: true };
    const blocker = await this.retention.blocker(tx, {
      vaultId: rows.vault.id,
      recordId: rows.record?.id,
      fileId: rows.file?.id,
    });
    if (blocker) return { purged: false, blocker };
    await beforeDelete?.(rows);
    // crypto-erase: the vault's key goes first (blobs of moved records rewrapped away from it)
    if (kind === 'vault') await this.cryptoErase.eraseVault(tx, rows.vault.id);
    await this.events.publish(tx, 'purged', typeof actor === 'function' ? actor(rows) : actor, rows);
    await this.trash.purge(tx, kind, id);
    return { purged: true };
  }
}
