import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  IdResponse,
  Principal,
  RecordChangedEvent,
  RecordDto,
  RecordLookupView,
  RecordSearchItem,
  RecordSearchQueryDto,
  RecordTransferredEvent,
  RECORDS_ERROR_CODES,
  Subject,
  SUBJECTS,
} from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { DataSource, EntityManager, Not } from 'typeorm';
import { AccessService, isUuid, recordNotFound, VaultAccess, vaultNotFound } from '../access/access.service';
import { CatalogueService, isOtherSubtype, ResolvedType } from '../catalogue/catalogue.service';
import { eventBase } from '../events/event-payload';
import { EventPublisher } from '../events/event-publisher';
import { FilesService } from '../files/files.service';
import { RecordFileEntity } from '../files/record-file.entity';
import { LicensesService } from '../plans/licenses.service';
import { PlansService } from '../plans/plans.service';
import { VaultEntity } from '../vaults/vault.entity';
import { countLiveRecords } from './record-counts';
import { RecordEntity } from './record.entity';
import { toLookupView, toSearchItem } from './record.view';

/** The name shown as lastModifiedBy: the caller's username, else its openId. */
export const actorName = (p: Principal) => p.username ?? p.openId;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

@Injectable()
export class RecordsService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly access: AccessService,
    private readonly catalogue: CatalogueService,
    private readonly licenses: LicensesService,
    private readonly plans: PlansService,
    private readonly events: EventPublisher,
    private readonly files: FilesService,
  ) {}

  async create({ vault }: VaultAccess, principal: Principal, dto: RecordDto): Promise<IdResponse> {
    const resolved = await this.catalogue.resolve(dto.recordTypeName, dto.recordSubtypeName);
    return this.ds.transaction(async (m) => {
      await this.lockVaultWithinQuota(m, [vault.id], vault.id);
      const record = m.create(RecordEntity, {
        tenantId: vault.tenantId,
        vaultId: vault.id,
        createdBy: principal.openId,
        status: 'ACTIVE',
        active: true,
      });
      this.assign(record, dto, resolved, principal);
      await m.save(record);
      await this.access.grantRecordRole(m, record, principal.openId, 'rec_owner');
      await this.publish(m, SUBJECTS.recordCreated, principal, vault, record, resolved.type.name);
      return { id: record.id };
    });
  }

  async lookup({ record, vaultRole, recordRole }: VaultAccess): Promise<RecordLookupView> {
    const r = record as RecordEntity;
    return toLookupView(
      r,
      await this.catalogue.type(r.recordTypeId),
      await this.catalogue.subtype(r.recordSubtypeId),
      vaultRole,
      recordRole,
      await this.filesHistoryOf(r.id),
    );
  }

  /** The record's files for its `filesHistory`, newest upload first (read only). */
  private filesHistoryOf(recordId: string): Promise<RecordFileEntity[]> {
    return this.ds.getRepository(RecordFileEntity).find({
      where: { recordId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  async search({ vault }: VaultAccess, q: RecordSearchQueryDto): Promise<RecordSearchItem[]> {
    const qb = this.ds
      .getRepository(RecordEntity)
      .createQueryBuilder('r')
      .where('r.vault_id = :vaultId', { vaultId: vault.id })
      .orderBy('r.updated_at', 'DESC')
      .addOrderBy('r.id', 'ASC');
    if (q.status) qb.andWhere('r.status = :status', { status: q.status });
    else qb.andWhere(`r.status <> 'DELETED'`);
    if (q.name) qb.andWhere(`r.name ILIKE :name ESCAPE '\\'`, { name: `%${escapeLike(q.name)}%` });
    if (q.uniqueReference) qb.andWhere('r.unique_reference = :ref', { ref: q.uniqueReference });
    if (q.recordSubtypeOther) {
      qb.andWhere(`r.record_subtype_other ILIKE :other ESCAPE '\\'`, { other: `%${escapeLike(q.recordSubtypeOther)}%` });
    }
    if (q.recordTypeId) qb.andWhere('r.record_type_id = :typeId', { typeId: q.recordTypeId });
    if (q.recordSubtypeId) qb.andWhere('r.record_subtype_id = :subtypeId', { subtypeId: q.recordSubtypeId });
    if (q.recordTypeName) {
      const type = (await this.catalogue.allTypes()).find((t) => t.name === q.recordTypeName);
      if (!type) return [];
      qb.andWhere('r.record_type_id = :typeByName', { typeByName: type.id });
    }
    if (q.recordSubtypeName) {
      const ids = await this.catalogue.subtypeIdsNamed(q.recordSubtypeName);
      if (ids.length === 0) return [];
      qb.andWhere('r.record_subtype_id IN (:...subtypesByName)', { subtypesByName: ids });
    }
    const rows = await qb.getMany();
    const contributors = await this.access.contributors(rows.map((r) => r.id));
    return Promise.all(
      rows.map(async (r) =>
        toSearchItem(
          r,
          await this.catalogue.type(r.recordTypeId),
          await this.catalogue.subtype(r.recordSubtypeId),
          contributors.get(r.id) ?? [],
          q.locale,
        ),
      ),
    );
  }

  async update(access: VaultAccess, principal: Principal, dto: RecordDto): Promise<IdResponse> {
    const resolved = await this.catalogue.resolve(dto.recordTypeName, dto.recordSubtypeName);
    return this.ds.transaction(async (m) => {
      const record = await this.lockRecord(m, access);
      this.assign(record, dto, resolved, principal);
      await m.save(record);
      await this.publish(m, SUBJECTS.recordUpdated, principal, access.vault, record, resolved.type.name);
      return { id: record.id };
    });
  }

  /** Soft delete: the record turns DELETED (and inactive), leaves searches and the quota. */
  async remove(access: VaultAccess, principal: Principal): Promise<void> {
    await this.ds.transaction(async (m) => {
      const record = await this.lockRecord(m, access);
      record.status = 'DELETED';
      record.active = false;
      record.lastModifiedBy = actorName(principal);
      await m.save(record);
      await this.files.removeAllOfRecord(m, record.id);
      const type = await this.catalogue.type(record.recordTypeId);
      await this.publish(m, SUBJECTS.recordDeleted, principal, access.vault, record, type.name);
    });
  }

  /**
   * Moves a record to another vault where the caller is owner or editor; the record's
   * roles (and files) follow it because they hang off the record id.
   */
  async transfer(access: VaultAccess, principal: Principal, recordId: string, destinationId: string) {
    const { vault: source } = access;
    if (!isUuid(recordId)) throw recordNotFound();
    const dest = await this.access.visibleVault(principal, destinationId);
    if (!dest.vaultRole) throw vaultNotFound();
    if (dest.vaultRole !== 'vault_owner' && dest.vaultRole !== 'vault_editor') {
      throw ProblemException.forbidden('Moving a record needs the owner or editor role on the destination vault.');
    }
    if (dest.vault.id === source.id) {
      throw ProblemException.badRequest('The record is already in that vault.', [
        { field: 'destinationVaultId', message: 'destinationVaultId must be another vault' },
      ]);
    }
    await this.ds.transaction(async (m) => {
      await this.lockVaultWithinQuota(m, [source.id, dest.vault.id], dest.vault.id);
      const record = await this.lockRecord(m, { ...access, record: { id: recordId } as RecordEntity });
      await this.files.assertRoomForTransfer(m, record.id, dest.vault.id);
      record.vaultId = dest.vault.id;
      record.lastModifiedBy = actorName(principal);
      await m.save(record);
      const type = await this.catalogue.type(record.recordTypeId);
      const event: RecordTransferredEvent = {
        ...eventBase(principal, source),
        record: { id: record.id, name: record.name },
        recordTypeName: type.name,
        destinationVault: { id: dest.vault.id, name: dest.vault.name },
      };
      await this.events.publish(m, SUBJECTS.recordTransferred, event);
    });
  }

  /** Copies the §2.13 fields; optional fields left out keep their value, null clears them. */
  private assign(record: RecordEntity, dto: RecordDto, { type, subtype }: ResolvedType, principal: Principal) {
    record.name = dto.name;
    record.description = dto.description;
    record.recordTypeId = type.id;
    record.recordSubtypeId = subtype.id;
    record.recordSubtypeOther = isOtherSubtype(subtype) ? (dto.recordSubtypeOther ?? null) : null;
    if (dto.uniqueReference !== undefined) record.uniqueReference = dto.uniqueReference;
    if (dto.storageLocation !== undefined) record.storageLocation = dto.storageLocation;
    if (dto.editable !== undefined) record.editable = dto.editable;
    if (dto.recordDetails !== undefined) record.recordDetails = dto.recordDetails ?? {};
    record.recordDetails ??= {};
    record.uniqueReference ??= null;
    record.storageLocation ??= null;
    record.editable ??= null;
    record.lastModifiedBy = actorName(principal);
  }

  /** Locks the live record of the route's vault (404 when it is gone meanwhile). */
  private async lockRecord(m: EntityManager, access: VaultAccess): Promise<RecordEntity> {
    const id = access.record?.id;
    const record = id
      ? await m.findOne(RecordEntity, {
          where: { id, vaultId: access.vault.id, status: Not('DELETED') },
          lock: { mode: 'pessimistic_write' },
        })
      : null;
    if (!record) throw recordNotFound();
    return record;
  }

  /**
   * Locks the vault rows (in id order, so concurrent transfers cannot deadlock) and
   * refuses when `quotaVaultId` already holds its plan's vault.maxVaultRecords.
   */
  private async lockVaultWithinQuota(m: EntityManager, vaultIds: string[], quotaVaultId: string) {
    const locked = await m
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .select('v.id')
      .where('v.id IN (:...ids)', { ids: [...vaultIds].sort() })
      .orderBy('v.id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
    if (locked.length !== vaultIds.length) throw vaultNotFound();
    const plan = await this.licenses.planOf(quotaVaultId, m);
    const max = this.plans.limit(plan, 'vault.maxVaultRecords');
    if ((await countLiveRecords(m, quotaVaultId)) >= max) {
      throw ProblemException.conflict(
        RECORDS_ERROR_CODES.maxRecordsReached,
        `The vault already holds the ${max} records its plan allows.`,
      );
    }
  }

  private async publish(
    m: EntityManager,
    subject: Subject,
    principal: Principal,
    vault: { id: string; name: string },
    record: RecordEntity,
    recordTypeName: string,
  ) {
    const event: RecordChangedEvent = {
      ...eventBase(principal, vault),
      record: { id: record.id, name: record.name },
      recordTypeName,
    };
    await this.events.publish(m, subject, event);
  }
}
