import { Injectable } from '@nestjs/common';
import type { Tx } from '@vault/platform/persistence';
import type { RecordFileEntity } from '../../persistence/record-files/record-file.entity';
import type { RecordEntity } from '../../persistence/records/record.entity';
import { TrashRepository } from '../../persistence/trash/trash.repository';
import { actorName } from '../events/event-payload';
import { RetentionService } from './retention.service';
import { TrashActor, TrashEvents } from './trash-events';

/**
 * What a `DELETE` of a vault, a record or a file does now (docs/records-api.md, Trash): the
 * item leaves every read at once but stays in the trash until its `purgeAt`, and
 * `*.trashed` is published after the `*.deleted` the caller published (same transaction).
 * Callers hold the row locks of their delete.
 */
@Injectable()
export class Trasher {
  constructor(
    private readonly trash: TrashRepository,
    private readonly retention: RetentionService,
    private readonly events: TrashEvents,
  ) {}

  async trashVault(tx: Tx, vault: { id: string; name: string }, actor: TrashActor): Promise<void> {
    const { now, purgeAt } = await this.times(tx, vault.id);
    await this.trash.trashVault(tx, vault.id, actorName(actor), now, purgeAt);
    await this.events.publish(tx, 'trashed', actor, { vault }, { purgeAt });
  }

  async trashRecord(tx: Tx, vault: { id: string; name: string }, record: RecordEntity, actor: TrashActor): Promise<void> {
    const { now, purgeAt } = await this.times(tx, vault.id);
    await this.trash.trashRecord(tx, record.id, actorName(actor), now, purgeAt);
    await this.events.publish(tx, 'trashed', actor, { vault, record }, { purgeAt });
  }

  async trashFile(
    tx: Tx,
    vault: { id: string; name: string },
    record: RecordEntity,
    file: RecordFileEntity,
    actor: TrashActor,
  ): Promise<void> {
    const { now, purgeAt } = await this.times(tx, vault.id);
    await this.trash.trashFile(tx, file.id, actorName(actor), now, purgeAt);
    await this.events.publish(tx, 'trashed', actor, { vault, record, file }, { purgeAt });
  }

  /** Now, and when an item of the vault deleted now leaves the trash. */
  private async times(tx: Tx, vaultId: string): Promise<{ now: Date; purgeAt: Date }> {
    const now = new Date();
    return { now, purgeAt: await this.retention.purgeAt(tx, vaultId, now) };
  }
}
