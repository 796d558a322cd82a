import { Injectable } from '@nestjs/common';
import { FileChangedEvent, Principal, Subject } from '@vault/contracts';
import { recordNotFound, vaultNotFound } from '../../capabilities/access/access.errors';
import type { VaultAccess } from '../../capabilities/access/access.service';
import { CatalogueService } from '../../capabilities/catalogue/catalogue.service';
import { eventBase, fileEvent } from '../../capabilities/events/event-payload';
import { EventPublisher } from '../../capabilities/events/event-publisher';
import type { RecordFileEntity } from '../../persistence/record-files/record-file.entity';
import type { RecordEntity } from '../../persistence/records/record.entity';
import { RecordRepository } from '../../persistence/records/record.repository';
import type { Tx } from '@vault/platform/persistence';
import { VaultRepository } from '../../persistence/vaults/vault.repository';

/** The steps every change of a record's files shares: its locks and its event. */
@Injectable()
export class FileChanges {
  constructor(
    private readonly vaults: VaultRepository,
    private readonly records: RecordRepository,
    private readonly catalogue: CatalogueService,
    private readonly events: EventPublisher,
  ) {}

  /**
   * Locks the vault row (file changes of a vault and record moves are serialised for
   * the quota) and the live record of the route, still in this vault, for writing:
   * `publish` gives the record a new version.
   */
  async lock(tx: Tx, access: VaultAccess): Promise<RecordEntity> {
    const [vault] = await this.vaults.lock(tx, [access.vault.id]);
    if (!vault) throw vaultNotFound();
    const record = access.record ? await this.records.lockLive(tx, access.record.id, vault.id, 'write') : null;
    if (!record) throw recordNotFound();
    return record;
  }

  /**
   * Writes the change's event (`extra`: the fields a subject adds to FileChangedEvent), and
   * a new version of the record: its files are part of what a record read shows, so the
   * record's ETag changes with them.
   */
  async publish(
    tx: Tx,
    subject: Subject,
    principal: Principal,
    access: VaultAccess,
    record: RecordEntity,
    file: RecordFileEntity,
    extra: object = {},
  ): Promise<void> {
    const type = await this.catalogue.type(record.recordTypeId);
    const event: FileChangedEvent = { ...fileEvent(eventBase(principal, access.vault), record, type.name, file), ...extra };
    await this.events.publish(tx, subject, event);
    await this.records.bumpVersion(tx, record.id);
  }
}
