import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  ERROR_CODES,
  FILE_ERROR_CODES,
  FileChangedEvent,
  Principal,
  RecordFileGroup,
  RecordFileView,
  Subject,
  SUBJECTS,
  UpdateFileDto,
  UploadFileMetadataDto,
} from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { DataSource, EntityManager, Not, QueryFailedError } from 'typeorm';
import { recordNotFound, VaultAccess, vaultNotFound } from '../access/access.service';
import { CatalogueService } from '../catalogue/catalogue.service';
import { eventBase } from '../events/event-payload';
import { EventPublisher } from '../events/event-publisher';
import { LicensesService } from '../plans/licenses.service';
import { PlansService } from '../plans/plans.service';
import { RecordEntity } from '../records/record.entity';
import { VaultEntity } from '../vaults/vault.entity';
import { FileBytesService, StoredBytes } from './file-bytes.service';
import { FilePurgeEntity, RecordFileEntity } from './record-file.entity';
import { toFileView, toGroups } from './record-file.view';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const NAME_INDEX = 'record_files_name_uq';

/** Plan limits of an upload into a vault, in bytes. */
export interface UploadLimits {
  maxUploadBytes: number;
  quotaRemainingBytes: number;
}

/** A file the upload stream stored, waiting for its metadata row. */
export interface ReceivedFile {
  metadata: UploadFileMetadataDto;
  stored: StoredBytes;
  mediaType: string;
}

export const payloadTooLarge = (maxBytes: number) =>
  new ProblemException(
    413,
    'payload_too_large',
    `The file is larger than the ${Math.floor(maxBytes / MiB)} MB the vault's plan allows per upload.`,
  );

export const storageQuotaExceeded = () =>
  ProblemException.conflict(
    FILE_ERROR_CODES.storageQuotaExceeded,
    "The file does not fit in the storage the vault's plan allows.",
  );

const fileNameTaken = () =>
  ProblemException.conflict(FILE_ERROR_CODES.fileNameTaken, 'The record already has a file with this name.');

/**
 * The upload's queued removal was already carried out (or claimed) by the purge: the
 * upload took longer than FILE_UPLOAD_GRACE_SECONDS, so its bytes cannot be trusted.
 */
const uploadExpired = () =>
  new ProblemException(
    503,
    ERROR_CODES.serviceUnavailable,
    'The upload took longer than the service keeps unconfirmed bytes and was dropped; send it again.',
  );

export const fileNotFound = () => ProblemException.notFound('The file does not exist.');

const actorName = (p: Principal) => p.username ?? p.openId;

/** Metadata of record files: upload commit, list, update, delete, quotas and events. */
@Injectable()
export class FilesService {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly bytes: FileBytesService,
    private readonly catalogue: CatalogueService,
    private readonly licenses: LicensesService,
    private readonly plans: PlansService,
    private readonly events: EventPublisher,
  ) {}

  /** Per-upload limit and room left in the vault, read before the body streams. */
  async uploadLimits(vaultId: string): Promise<UploadLimits> {
    const plan = await this.licenses.planOf(vaultId);
    const maxVault = this.plans.limit(plan, 'vault.maxVaultGBs') * GiB;
    const used = await this.vaultUsage(this.ds.manager, vaultId);
    return {
      maxUploadBytes: this.plans.limit(plan, 'vault.maxUploadMBs') * MiB,
      quotaRemainingBytes: Math.max(0, maxVault - used),
    };
  }

  /** Early 409 for a taken name, before any byte is stored (the unique index decides races). */
  async assertNameFree({ record }: VaultAccess, fileName: string): Promise<void> {
    const taken = await this.ds.getRepository(RecordFileEntity).exists({ where: { recordId: record?.id, fileName } });
    if (taken) throw fileNameTaken();
  }

  /**
   * Makes a stored upload visible: checks the client checksum and the vault quota,
   * inserts the metadata row and the event in one transaction. Any refusal removes
   * the bytes at once.
   */
  async commitUpload(
    access: VaultAccess,
    principal: Principal,
    received: ReceivedFile,
    expectedSha256: string | undefined,
  ): Promise<RecordFileView> {
    const { metadata: meta, stored } = received;
    try {
      if (expectedSha256 !== undefined && expectedSha256 !== stored.sha256) {
        throw new ProblemException(400, FILE_ERROR_CODES.checksumMismatch, 'The file does not match its x-checksum-sha256.');
      }
      return await this.ds.transaction(async (m) => {
        const record = await this.lockVaultAndRecord(m, access);
        await this.assertRoom(m, access.vault.id, stored.size);
        const claimed = await m.delete(FilePurgeEntity, { storageKey: stored.storageKey });
        if (claimed.affected !== 1) throw uploadExpired();
        const now = new Date();
        const file = m.create(RecordFileEntity, {
          id: randomUUID(),
          recordId: record.id,
          tenantId: record.tenantId,
          fileName: meta.fileName,
          correlationId: meta.correlationId,
          fileType: meta.fileType,
          uploadDetail: meta.uploadDetail ?? null,
          caption: meta.caption ?? null,
          uploadTitle: meta.uploadTitle ?? null,
          fileExtension: meta.fileExtension ?? null,
          mediaType: received.mediaType,
          storageKey: stored.storageKey,
          size: stored.size,
          sha256: stored.sha256,
          uploader: actorName(principal),
          uploaderOpenId: principal.openId,
          active: true,
          revision: 0,
          createdAt: now,
          updatedAt: now,
        });
        await m.insert(RecordFileEntity, file).catch(mapNameRace);
        await this.publish(m, SUBJECTS.fileUploaded, principal, access, record, file);
        return toFileView(access.vault.id, file);
      });
    } catch (err) {
      await this.bytes.discard(stored.storageKey);
      throw err;
    }
  }

  async list(access: VaultAccess): Promise<RecordFileGroup[]> {
    const files = await this.ds.getRepository(RecordFileEntity).find({
      where: { recordId: access.record?.id },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return toGroups(access.vault.id, files);
  }

  /** The file of the route, for download (404 when the record has no such file). */
  async find(access: VaultAccess, fileName: string): Promise<RecordFileEntity> {
    const file = await this.ds.getRepository(RecordFileEntity).findOne({ where: { recordId: access.record?.id, fileName } });
    if (!file) throw fileNotFound();
    return file;
  }

  /** Metadata update; the caller's correlationId must be the stored one (else 409 stale). */
  async update(access: VaultAccess, principal: Principal, fileName: string, dto: UpdateFileDto): Promise<RecordFileView> {
    return this.ds.transaction(async (m) => {
      const record = await this.lockVaultAndRecord(m, access);
      const file = await this.lockFile(m, record.id, fileName);
      if (dto.correlationId !== file.correlationId) {
        throw ProblemException.conflict(
          FILE_ERROR_CODES.staleCorrelationId,
          'The correlationId is not the one of the file; reload the file list.',
        );
      }
      if (file.fileType === 'image' && !dto.caption) {
        throw ProblemException.badRequest('The request has 1 invalid field.', [
          { field: 'caption', message: 'caption is required for images' },
        ]);
      }
      if (dto.uploadDetail !== undefined) file.uploadDetail = dto.uploadDetail;
      if (dto.caption !== undefined) file.caption = dto.caption;
      if (dto.uploadTitle !== undefined) file.uploadTitle = dto.uploadTitle;
      file.revision += 1;
      file.updatedAt = new Date();
      await m.save(file);
      await this.publish(m, SUBJECTS.fileUpdated, principal, access, record, file);
      return toFileView(access.vault.id, file);
    });
  }

  /** Deletes the metadata (freeing the quota at commit), then the bytes. */
  async remove(access: VaultAccess, principal: Principal, fileName: string): Promise<RecordFileView> {
    const file = await this.ds.transaction(async (m) => {
      const record = await this.lockVaultAndRecord(m, access);
      const found = await this.lockFile(m, record.id, fileName);
      await m.delete(RecordFileEntity, { id: found.id });
      await this.publish(m, SUBJECTS.fileDeleted, principal, access, record, found);
      return found;
    });
    await this.bytes.purgeKey(file.storageKey);
    return toFileView(access.vault.id, file);
  }

  /**
   * Hook for deleting a record (caller's transaction): its files go with it and
   * their bytes are queued for removal by the record_files delete trigger.
   */
  async removeAllOfRecord(m: EntityManager, recordId: string): Promise<void> {
    await m.delete(RecordFileEntity, { recordId });
  }

  /**
   * Hook for moving a record (caller's transaction, vault rows already locked):
   * the files hang off the record and follow it, so the destination must have room.
   */
  async assertRoomForTransfer(m: EntityManager, recordId: string, destinationVaultId: string): Promise<void> {
    const raw = await m
      .getRepository(RecordFileEntity)
      .createQueryBuilder('f')
      .select('COALESCE(SUM(f.size), 0)', 'total')
      .where('f.record_id = :recordId', { recordId })
      .getRawOne<{ total: string }>();
    const size = Number(raw?.total ?? 0);
    if (size > 0) await this.assertRoom(m, destinationVaultId, size);
  }

  private async assertRoom(m: EntityManager, vaultId: string, adding: number): Promise<void> {
    const plan = await this.licenses.planOf(vaultId, m);
    const max = this.plans.limit(plan, 'vault.maxVaultGBs') * GiB;
    if ((await this.vaultUsage(m, vaultId)) + adding > max) throw storageQuotaExceeded();
  }

  /** Bytes of all files of the vault's records. */
  private async vaultUsage(m: EntityManager, vaultId: string): Promise<number> {
    const raw = await m
      .getRepository(RecordFileEntity)
      .createQueryBuilder('f')
      .innerJoin(RecordEntity, 'r', 'r.id = f.record_id')
      .select('COALESCE(SUM(f.size), 0)', 'total')
      .where('r.vault_id = :vaultId', { vaultId })
      .getRawOne<{ total: string }>();
    return Number(raw?.total ?? 0);
  }

  /**
   * Locks the vault row (uploads of a vault and record moves are serialised for the
   * quota) and the live record of the route, still in this vault.
   */
  private async lockVaultAndRecord(m: EntityManager, access: VaultAccess): Promise<RecordEntity> {
    const vault = await m
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .where('v.id = :id', { id: access.vault.id })
      .setLock('pessimistic_write')
      .getOne();
    if (!vault) throw vaultNotFound();
    const record = access.record
      ? await m.findOne(RecordEntity, {
          where: { id: access.record.id, vaultId: vault.id, status: Not('DELETED') },
          lock: { mode: 'pessimistic_read' },
        })
      : null;
    if (!record) throw recordNotFound();
    return record;
  }

  private async lockFile(m: EntityManager, recordId: string, fileName: string): Promise<RecordFileEntity> {
    const file = await m.findOne(RecordFileEntity, { where: { recordId, fileName }, lock: { mode: 'pessimistic_write' } });
    if (!file) throw fileNotFound();
    return file;
  }

  private async publish(
    m: EntityManager,
    subject: Subject,
    principal: Principal,
    access: VaultAccess,
    record: RecordEntity,
    file: RecordFileEntity,
  ): Promise<void> {
    const type = await this.catalogue.type(record.recordTypeId);
    const event: FileChangedEvent = {
      ...eventBase(principal, access.vault),
      record: { id: record.id, name: record.name },
      recordTypeName: type.name,
      fileName: file.fileName,
      correlationId: file.correlationId,
      fileType: file.fileType,
      fileSize: file.size,
    };
    await this.events.publish(m, subject, event);
  }
}

function mapNameRace(err: unknown): never {
  const driver = err instanceof QueryFailedError ? (err.driverError as { code?: string; constraint?: string }) : undefined;
  if (driver?.code === '23505' && driver.constraint === NAME_INDEX) throw fileNameTaken();
  throw err;
}
