import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  IdResponse,
  Principal,
  RecordChangedEvent,
  RecordDto,
  RecordLookupView,
  RecordTransferredEvent,
  Subject,
  SUBJECTS,
} from '@vault/contracts';
import { sqlStateOf } from '@vault/platform/errors';
import { ETagged, IfMatchCondition } from '@vault/platform/http';
import { recordNotFound, vaultNotFound } from '../../capabilities/access/access.errors';
import { callerETag, callerView } from '../../capabilities/access/caller-etag';
import { AccessService, isUuid, VaultAccess } from '../../capabilities/access/access.service';
import { CatalogueService, isOtherSubtype, ResolvedType } from '../../capabilities/catalogue/catalogue.service';
import { actorName, eventBase } from '../../capabilities/events/event-payload';
import { EventPublisher } from '../../capabilities/events/event-publisher';
import { MovedBlobsService } from '../../capabilities/encryption/moved-blobs.service';
import { RecordFileRepository } from '../../persistence/record-files/record-file.repository';
import { RecordEntity } from '../../persistence/records/record.entity';
import { RecordRepository } from '../../persistence/records/record.repository';
import { Transactions, Tx } from '@vault/platform/persistence';
import { VaultEntity } from '../../persistence/vaults/vault.entity';
import { VaultRepository } from '../../persistence/vaults/vault.repository';
import { QuotaService } from '../../capabilities/plans/quota.service';
import { Trasher } from '../../capabilities/retention/trasher';
import { toLookupView } from './record.view';
import { destinationRoleTooWeak, sameVault } from './records.errors';

const FOREIGN_KEY_VIOLATION = '23503';

/** Records of a vault: create, read, change, soft delete and move between vaults (search: RecordSearchService). */
@Injectable()
export class RecordsService {
  constructor(
    private readonly tx: Transactions,
    private readonly vaults: VaultRepository,
    private readonly records: RecordRepository,
    private readonly files: RecordFileRepository,
    private readonly access: AccessService,
    private readonly catalogue: CatalogueService,
    private readonly quota: QuotaService,
    private readonly events: EventPublisher,
    private readonly trasher: Trasher,
    private readonly movedBlobs: MovedBlobsService,
  ) {}

  /**
   * One statement creates the record: the claim of its place in the vault (the live-record
   * counter's conditional increment, which holds the vault row for that statement only), the
   * record with its owner role, and its outbox row.
   */
  async create({ vault }: VaultAccess, principal: Principal, dto: RecordDto): Promise<IdResponse> {
    const resolved = await this.catalogue.resolve(dto.recordTypeName, dto.recordSubtypeName);
    const record = this.records.create({
      id: randomUUID(),
      tenantId: vault.tenantId,
      vaultId: vault.id,
      createdBy: principal.openId,
      status: 'ACTIVE',
      active: true,
    });
    this.assign(record, dto, resolved, principal);
    const place = await this.quota.recordPlace(vault.id);
    const event = this.events.publishFrom(SUBJECTS.recordCreated, this.recordEvent(principal, vault, record, resolved.type.name));
    const { created, vaultFound } = await this.tx
      .single((tx) => this.records.insertWithRole(tx, record, principal.openId, 'rec_owner', place.claim, event))
      .catch(mapVaultGone);
    if (!vaultFound) throw vaultNotFound();
    if (!created) throw place.refused();
    return { id: record.id };
  }

  async lookup(access: VaultAccess): Promise<ETagged<RecordLookupView>> {
    const { record, vaultRole, recordRole } = access;
    const r = record as RecordEntity;
    const view = toLookupView(
      r,
      await this.catalogue.type(r.recordTypeId),
      await this.catalogue.subtype(r.recordSubtypeId),
      vaultRole,
      recordRole,
      await this.files.list(r.id, true),
    );
    return callerView(view, r.id, r.version, access);
  }

  /** Changes the record if `ifMatch` names its current version (checked under the row lock). */
  async update(
    access: VaultAccess,
    principal: Principal,
    dto: RecordDto,
    ifMatch = IfMatchCondition.absent,
  ): Promise<ETagged<IdResponse>> {
    const resolved = await this.catalogue.resolve(dto.recordTypeName, dto.recordSubtypeName);
    const changed = await this.updateInOneStatement(access, principal, dto, resolved, ifMatch);
    if (changed) return changed;
    // gone, moved or changed meanwhile, or If-Match names another version: decided under the row lock
    return this.tx.runCommittingWith(async (tx) => {
      const record = await this.lockRecord(tx, access.vault.id, access.record?.id);
      ifMatch.assert(callerETag(record.id, record.version, access));
      const version = await this.records.update(tx, record.id, this.assign(record, dto, resolved, principal));
      // the outbox row last, sent with the COMMIT: one round trip less per change
      const { sql } = this.events.publishStatement(
        SUBJECTS.recordUpdated,
        this.recordEvent(principal, access.vault, record, resolved.type.name),
      );
      return { result: callerView({ id: record.id }, record.id, version, access), last: sql };
    });
  }

  /**
   * The change as one statement, the update with its outbox row, no lock read and no BEGIN
   * and COMMIT: when the record is still live in the vault and, with If-Match, still the
   * version the route's access read saw and If-Match names. Without If-Match the last writer
   * wins, as under the row lock, and the fields the body leaves out keep what the row holds
   * when the statement runs. Null, with nothing written, when the record is gone, moved or
   * (with If-Match) changed meanwhile, or If-Match names another version: update() then
   * decides under the row lock, as if this had not been tried.
   */
  private async updateInOneStatement(
    access: VaultAccess,
    principal: Principal,
    dto: RecordDto,
    resolved: ResolvedType,
    ifMatch: IfMatchCondition,
  ): Promise<ETagged<IdResponse> | null> {
    const seen = access.record;
    if (!seen) return null;
    const atVersion = ifMatch.header === undefined ? undefined : seen.version;
    if (atVersion !== undefined && !ifMatch.holds(callerETag(seen.id, atVersion, access))) return null;
    const record = Object.assign(new RecordEntity(), seen);
    const changes = this.assign(record, dto, resolved, principal);
    const event = this.events.publishFrom(
      SUBJECTS.recordUpdated,
      this.recordEvent(principal, access.vault, record, resolved.type.name),
    );
    const target = { id: seen.id, vaultId: access.vault.id, version: atVersion };
    const version = await this.tx.single((tx) => this.records.updateLive(tx, target, changes, event));
    return version === null ? null : callerView({ id: seen.id }, seen.id, version, access);
  }

  /**
   * Moves the record to the trash with its files: it turns DELETED (and inactive), leaves
   * searches and the record quota; a restore gives its status and files back.
   */
  async remove(access: VaultAccess, principal: Principal, ifMatch = IfMatchCondition.absent): Promise<void> {
    await this.tx.run(async (tx) => {
      // the vault first, as every change that moves its counters (see lockVaults)
      await this.lockVaults(tx, [access.vault.id]);
      const record = await this.lockRecord(tx, access.vault.id, access.record?.id);
      ifMatch.assert(callerETag(record.id, record.version, access));
      const type = await this.catalogue.type(record.recordTypeId);
      await this.publish(tx, SUBJECTS.recordDeleted, principal, access.vault, record, type.name);
      await this.trasher.trashRecord(tx, access.vault, record, principal);
    });
  }

  /**
   * Moves a record to another vault where the caller is owner or editor; the record's
   * roles (and files) follow it because they hang off the record id; the envelopes of the
   * blobs it takes along are rewrapped to the destination vault's key in the same transaction.
   */
  async transfer(access: VaultAccess, principal: Principal, recordId: string, destinationId: string) {
    const { vault: source } = access;
    if (!isUuid(recordId)) throw recordNotFound();
    const dest = await this.access.visibleVault(principal, destinationId);
    if (dest.vaultRole !== 'vault_owner' && dest.vaultRole !== 'vault_editor') throw destinationRoleTooWeak();
    if (dest.vault.id === source.id) throw sameVault();
    await this.movedBlobs.prepare(recordId, source.id, dest.vault.id);
    await this.tx.run(async (tx) => {
      const locked = await this.lockVaults(tx, [source.id, dest.vault.id]);
      const destination = locked.find((v) => v.id === dest.vault.id);
      if (!destination) throw vaultNotFound();
      await this.quota.assertRoomForRecord(tx, destination);
      const record = await this.lockRecord(tx, source.id, recordId);
      await this.quota.assertRoomForRecordFiles(tx, record.id, dest.vault.id);
      await this.records.update(tx, record.id, { vaultId: dest.vault.id, lastModifiedBy: actorName(principal) });
      // the blobs the record took along are sealed to the destination's key before the commit
      await this.movedBlobs.rewrapMoved(tx, source.id, dest.vault.id);
      const type = await this.catalogue.type(record.recordTypeId);
      const event: RecordTransferredEvent = {
        ...eventBase(principal, source),
        record: { id: record.id, name: record.name },
        recordTypeName: type.name,
        destinationVault: { id: dest.vault.id, name: dest.vault.name },
      };
      await this.events.publish(tx, SUBJECTS.recordTransferred, event);
    });
  }

  /**
   * Copies the record fields of the body; optional fields left out keep their value,
   * null clears them. Returns the fields to write (never status or vault): those left out
   * are not among them, so a write keeps what its row holds when it runs.
   */
  private assign(
    record: RecordEntity,
    dto: RecordDto,
    { type, subtype }: ResolvedType,
    principal: Principal,
  ): Partial<RecordEntity> {
    const changes: Partial<RecordEntity> = {
      name: dto.name,
      description: dto.description,
      recordTypeId: type.id,
      recordSubtypeId: subtype.id,
      recordSubtypeOther: isOtherSubtype(subtype) ? (dto.recordSubtypeOther ?? null) : null,
      lastModifiedBy: actorName(principal),
    };
    if (dto.uniqueReference !== undefined) changes.uniqueReference = dto.uniqueReference;
    if (dto.storageLocation !== undefined) changes.storageLocation = dto.storageLocation;
    if (dto.editable !== undefined) changes.editable = dto.editable;
    if (dto.recordDetails !== undefined) changes.recordDetails = dto.recordDetails ?? {};
    Object.assign(record, changes);
    record.recordDetails ??= {};
    record.uniqueReference ??= null;
    record.storageLocation ??= null;
    record.editable ??= null;
    return changes;
  }

  /**
   * Locks the vault rows (404 when one is gone meanwhile). Every change of a record's
   * status or vault takes them before the record, because the live-record counter on
   * the vault row changes with it: one lock order, no deadlock.
   */
  private async lockVaults(tx: Tx, ids: string[]): Promise<VaultEntity[]> {
    const locked = await this.vaults.lock(tx, ids);
    if (locked.length !== ids.length) throw vaultNotFound();
    return locked;
  }

  /** Locks the live record of the vault (404 when it is gone meanwhile). */
  private async lockRecord(tx: Tx, vaultId: string, recordId: string | undefined): Promise<RecordEntity> {
    const record = recordId ? await this.records.lockLive(tx, recordId, vaultId, 'write') : null;
    if (!record) throw recordNotFound();
    return record;
  }

  private async publish(
    tx: Tx,
    subject: Subject,
    principal: Principal,
    vault: { id: string; name: string },
    record: RecordEntity,
    recordTypeName: string,
  ) {
    await this.events.publish(tx, subject, this.recordEvent(principal, vault, record, recordTypeName));
  }

  private recordEvent(
    principal: Principal,
    vault: { id: string; name: string },
    record: RecordEntity,
    recordTypeName: string,
  ): RecordChangedEvent {
    return { ...eventBase(principal, vault), record: { id: record.id, name: record.name }, recordTypeName };
  }
}

/** A record insert into a vault deleted meanwhile fails its foreign key: the vault is gone (404). */
function mapVaultGone(err: unknown): never {
  if (sqlStateOf(err) === FOREIGN_KEY_VIOLATION) throw vaultNotFound();
  throw err;
}
