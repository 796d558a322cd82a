import { Injectable } from '@nestjs/common';
import { Principal, RestoreConflictChoice, RestoredItemView, RetentionView } from '@vault/contracts';
import { mapUniqueViolation } from '@vault/platform/errors';
import { Transactions, Tx } from '@vault/platform/persistence';
import { isUuid } from '../../capabilities/access/access.service';
import { actorName } from '../../capabilities/events/event-payload';
import { LicensesService } from '../../capabilities/plans/licenses.service';
import { QuotaService } from '../../capabilities/plans/quota.service';
import { ItemPurger } from '../../capabilities/retention/item-purger';
import { heldBy, nameTaken, notInTrash, parentInTrash, retainedUntil } from '../../capabilities/retention/retention.errors';
import { RetentionService } from '../../capabilities/retention/retention.service';
import { TrashEvents } from '../../capabilities/retention/trash-events';
import { FILE_NAME_INDEX } from '../../persistence/record-files/record-file.repository';
import { RecordRepository } from '../../persistence/records/record.repository';
import { TrashRepository, TrashTarget } from '../../persistence/trash/trash.repository';
import { VaultEntity } from '../../persistence/vaults/vault.entity';
import { VaultRepository } from '../../persistence/vaults/vault.repository';
import { authorizeTrashItem } from './trash-access';

/** `name (n).ext`: the first of these names no live file of the record has. */
function freeName(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; ; n++) {
    const candidate = `${stem} (${n})${ext}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** Restore and purge of trashed vaults, records and files (docs/records-api.md, Trash). */
@Injectable()
export class TrashService {
  constructor(
    private readonly tx: Transactions,
    private readonly trash: TrashRepository,
    private readonly vaults: VaultRepository,
    private readonly records: RecordRepository,
    private readonly licenses: LicensesService,
    private readonly quota: QuotaService,
    private readonly purger: ItemPurger,
    private readonly events: TrashEvents,
    private readonly retention: RetentionService,
  ) {}

  /** What keeps a trashed item from purge, and until when (the role its delete needed). */
  async retentionOf(principal: Principal, itemId: string): Promise<RetentionView> {
    const t = await this.target(principal, itemId);
    const recordId = t.kind === 'record' ? t.id : t.recordId;
    const scope = { vaultId: t.vaultId, recordId: t.kind === 'vault' ? null : recordId, fileId: t.kind === 'file' ? t.id : null };
    return this.retention.explain(t.kind, t.id, scope, t);
  }

  /** Brings the item back whole: a vault with all it held, a record with its status and files, a file under its name. */
  async restore(principal: Principal, itemId: string, onConflict: RestoreConflictChoice = 'fail'): Promise<RestoredItemView> {
    const t = await this.target(principal, itemId);
    return this.tx.run(async (tx) => {
      const vault = await this.lockVault(tx, t);
      if (t.kind === 'vault') return this.restoreVault(tx, vault, principal, onConflict);
      if (vault.deletedAt) throw parentInTrash('vault');
      if (t.kind === 'record') return this.restoreRecord(tx, t, vault, principal);
      return this.restoreFile(tx, t, vault, principal, onConflict);
    });
  }

  /** Purges the item now, unless a legal hold or the retention period covers it (409). */
  async purge(principal: Principal, itemId: string): Promise<void> {
    const t = await this.target(principal, itemId);
    await this.tx.run(async (tx) => {
      if (!(await this.trash.lockTrashed(tx, t.kind, t.id))) throw notInTrash();
      const outcome = await this.purger.purge(tx, t.kind, t.id, principal);
      if (outcome.purged) return;
      throw 'hold' in outcome.blocker ? heldBy(outcome.blocker.hold) : retainedUntil(outcome.blocker.until);
    });
  }

  private async target(principal: Principal, itemId: string): Promise<TrashTarget> {
    if (!isUuid(itemId)) throw notInTrash();
    return authorizeTrashItem(await this.trash.find(principal.tenantId, principal.openId, itemId));
  }

  /** The item's vault row, locked first as every change of its counters does. */
  private async lockVault(tx: Tx, t: TrashTarget): Promise<VaultEntity> {
    const [vault] = await this.vaults.lock(tx, [t.vaultId]);
    if (!vault) throw notInTrash();
    return vault;
  }

  /** A vault whose inbox name a live vault took meanwhile: 409 name_taken, or back without it (onConflict=rename). */
  private async restoreVault(
    tx: Tx,
    vault: VaultEntity,
    principal: Principal,
    onConflict: RestoreConflictChoice,
  ): Promise<RestoredItemView> {
    if (!vault.deletedAt) throw notInTrash();
    await this.vaults.lockOwner(tx, principal.tenantId, principal.openId);
    await this.quota.assertCanOwnAnotherVault(tx, principal, await this.licenses.planOf(vault.id, tx));
    const inbox = vault.emailUsername;
    const inboxTaken = inbox !== null && (await this.vaults.emailUsernameTaken(inbox, vault.id, tx));
    if (inboxTaken && onConflict !== 'rename') throw nameTaken(`${inbox} (inbox name)`);
    await this.trash.restoreVault(tx, vault.id, inboxTaken);
    await this.events.publish(tx, 'restored', principal, { vault });
    return { id: vault.id, kind: 'vault', name: vault.name, vaultId: vault.id, recordId: null };
  }

  private async restoreRecord(tx: Tx, t: TrashTarget, vault: VaultEntity, principal: Principal): Promise<RestoredItemView> {
    if (!(await this.trash.lockTrashed(tx, 'record', t.id))) throw notInTrash();
    await this.quota.assertRoomForRecord(tx, vault);
    await this.trash.restoreRecord(tx, t.id, actorName(principal));
    const rows = await this.trash.rowsOf(tx, 'record', t.id);
    await this.events.publish(tx, 'restored', principal, { vault, record: rows?.record });
    return { id: t.id, kind: 'record', name: t.name, vaultId: vault.id, recordId: t.id };
  }

  private async restoreFile(
    tx: Tx,
    t: TrashTarget,
    vault: VaultEntity,
    principal: Principal,
    onConflict: RestoreConflictChoice,
  ): Promise<RestoredItemView> {
    const record = t.recordId ? await this.records.lockLive(tx, t.recordId, vault.id, 'write') : null;
    if (!record) throw parentInTrash('record');
    if (!(await this.trash.lockTrashed(tx, 'file', t.id))) throw notInTrash();
    const taken = await this.trash.liveNamesLike(tx, record.id, t.name.replace(/\.[^.]*$/, ''));
    if (taken.has(t.name) && onConflict !== 'rename') throw nameTaken(t.name);
    const name = taken.has(t.name) ? freeName(t.name, taken) : t.name;
    await this.trash
      .restoreFile(tx, t.id, name)
      .catch((err) => mapUniqueViolation(err, { [FILE_NAME_INDEX]: () => nameTaken(name) }));
    await this.records.bumpVersion(tx, record.id);
    const rows = await this.trash.rowsOf(tx, 'file', t.id);
    await this.events.publish(
      tx,
      'restored',
      principal,
      { vault, record, file: rows?.file },
      name === t.name ? {} : { restoredAs: name },
    );
    return { id: t.id, kind: 'file', name, vaultId: vault.id, recordId: record.id };
  }
}
