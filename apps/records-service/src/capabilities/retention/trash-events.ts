import { Injectable } from '@nestjs/common';
import { Principal, SUBJECTS, Subject, type TrashItemKind, VaultEventBase } from '@vault/contracts';
import type { Tx } from '@vault/platform/persistence';
import type { RecordFileEntity } from '../../persistence/record-files/record-file.entity';
import type { RecordEntity } from '../../persistence/records/record.entity';
import { CatalogueService } from '../catalogue/catalogue.service';
import { eventBase } from '../events/event-payload';
import { EventPublisher } from '../events/event-publisher';

/** A transition of the trash lifecycle. */
export type TrashTransition = 'trashed' | 'restored' | 'purged';

const SUBJECT: Record<TrashItemKind, Record<TrashTransition, Subject>> = {
  vault: { trashed: SUBJECTS.vaultTrashed, restored: SUBJECTS.vaultRestored, purged: SUBJECTS.vaultPurged },
  record: { trashed: SUBJECTS.recordTrashed, restored: SUBJECTS.recordRestored, purged: SUBJECTS.recordPurged },
  file: { trashed: SUBJECTS.fileTrashed, restored: SUBJECTS.fileRestored, purged: SUBJECTS.filePurged },
};

/** Who acts: the caller, or the purger (`system`). */
export type TrashActor = Pick<Principal, 'tenantId' | 'openId' | 'username'>;

/** The purger as an event's actor. */
export const systemActor = (tenantId: string, why = 'system (trash retention)'): TrashActor => ({
  tenantId,
  openId: 'system',
  username: why,
});

/** What a trash event is about: the vault, and the record and file when it is one of those. */
export interface TrashSubjectRows {
  vault: { id: string; name: string };
  record?: RecordEntity;
  file?: RecordFileEntity;
}

/** Writes the outbox event of a trash transition (`*.trashed`, `*.restored`, `*.purged`) in the caller's transaction. */
@Injectable()
export class TrashEvents {
  constructor(
    private readonly events: EventPublisher,
    private readonly catalogue: CatalogueService,
  ) {}

  async publish(
    tx: Tx,
    transition: TrashTransition,
    actor: TrashActor,
    rows: TrashSubjectRows,
    extra: { purgeAt?: Date; restoredAs?: string } = {},
  ): Promise<void> {
    const kind: TrashItemKind = rows.file ? 'file' : rows.record ? 'record' : 'vault';
    const payload: VaultEventBase & Record<string, unknown> = { ...eventBase(actor, rows.vault) };
    if (kind === 'vault') payload['changedFields'] = [];
    if (rows.record) {
      payload['record'] = { id: rows.record.id, name: rows.record.name };
      payload['recordTypeName'] = (await this.catalogue.type(rows.record.recordTypeId)).name;
    }
    if (rows.file) {
      Object.assign(payload, {
        fileName: rows.file.fileName,
        correlationId: rows.file.correlationId,
        fileType: rows.file.fileType,
        fileSize: rows.file.size,
      });
    }
    if (extra.purgeAt) payload['purgeAt'] = extra.purgeAt.toISOString();
    if (extra.restoredAs) payload['restoredAs'] = extra.restoredAs;
    await this.events.publish(tx, SUBJECT[kind][transition], payload);
  }
}
