import { Injectable } from '@nestjs/common';
import type { Upload } from '@tus/utils';
import { FILE_ERROR_CODES, Principal, replacesExisting, UploadFileMetadataDto } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import { routeRecordId, type VaultAccess } from '../../../capabilities/access/access.service';
import { payloadTooLarge } from '../../../capabilities/plans/plans.errors';
import { QuotaService } from '../../../capabilities/plans/quota.service';
import { FileBytesService } from '../../../capabilities/storage/file-bytes.service';
import { RecordFileRepository } from '../../../persistence/record-files/record-file.repository';
import { ResumableUploadEntity } from '../../../persistence/resumable-uploads/resumable-upload.entity';
import { ResumableUploadRepository } from '../../../persistence/resumable-uploads/resumable-upload.repository';
import { Transactions } from '@vault/platform/persistence';
import { FileChanges } from '../file-changes';
import { fileNameTaken, uploadExceedsVaultStorage, uploadsFull } from '../files.errors';
import { ResumableEnv } from './resumable.env';
import type { CreationHook } from './tus-calls';
import { parseTusMetadata } from './tus-metadata';

/** After an upload's expiry its bytes stay queued this much longer, in case the sweeper never ran. */
const PURGE_BACKSTOP_MS = 86_400_000;

/** A new upload's row before the record's lock tells its record and tenant. */
type NewUpload = Omit<ResumableUploadEntity, 'recordId' | 'tenantId'>;

/**
 * The creation step of a resumable upload (ResumableUploadService.create): every rule of
 * the multipart upload before any byte (metadata, name, per-upload limit, vault quota, open
 * uploads of the caller and of the record's tenant), then the reservation: the upload's row, inserted under the
 * record's lock once the vault's room is checked again there.
 */
@Injectable()
export class ResumableCreation {
  constructor(
    private readonly tx: Transactions,
    private readonly uploads: ResumableUploadRepository,
    private readonly files: RecordFileRepository,
    private readonly changes: FileChanges,
    private readonly quota: QuotaService,
    private readonly bytes: FileBytesService,
    private readonly env: ResumableEnv,
  ) {}

  /** Admits and reserves `upload` for the caller, expiring in `expiryMs`; answers when it was created. */
  async create(access: VaultAccess, principal: Principal, upload: Upload, onCreate: CreationHook | undefined): Promise<Date> {
    const { metadata, sha256, mediaType } = parseTusMetadata(upload.metadata);
    const length = upload.size ?? 0;
    await this.admit(access, principal, metadata, length);
    const createdAt = new Date();
    const expiresAt = new Date(createdAt.getTime() + this.env.TUS_UPLOAD_EXPIRY_SECONDS * 1000);
    // encrypted as it arrives, to the vault's key (docs/encryption.md, resumable uploads)
    const purgeAfter = new Date(expiresAt.getTime() + PURGE_BACKSTOP_MS);
    const { storageKey, state } = await this.bytes.beginAppend(purgeAfter, access.vault.id);
    const row: NewUpload = {
      id: upload.id,
      ownerOpenId: principal.openId,
      storageKey,
      length,
      offset: 0,
      metadata: { ...metadata },
      mediaType,
      expectedSha256: sha256 ?? null,
      storeState: state,
      createdAt,
      expiresAt,
    };
    try {
      await this.reserve(access, row, onCreate);
    } catch (err) {
      await this.bytes.discard(storageKey);
      throw err;
    }
    return createdAt;
  }

  private async admit(access: VaultAccess, principal: Principal, metadata: UploadFileMetadataDto, length: number): Promise<void> {
    // `replace` in Upload-Metadata: a file of this name gets a new version at completion
    const taken = !replacesExisting(metadata) && (await this.files.nameTaken(routeRecordId(access), metadata.fileName));
    if (taken) throw fileNameTaken();
    const limits = await this.quota.uploadLimits(access.vault.id);
    if (length > limits.maxUploadBytes) throw payloadTooLarge(limits.maxUploadBytes);
    if (length > limits.quotaRemainingBytes) throw uploadExceedsVaultStorage();
    const open = await this.uploads.countOpenOf(principal.openId);
    if (open >= this.env.TUS_MAX_OPEN_UPLOADS) throw uploadsFull(this.env.TUS_MAX_OPEN_UPLOADS);
    const tenantOpen = await this.uploads.countOpenInTenant(access.vault.tenantId);
    if (tenantOpen >= this.env.TUS_MAX_OPEN_UPLOADS_PER_TENANT)
      throw uploadsFull(this.env.TUS_MAX_OPEN_UPLOADS_PER_TENANT, 'tenant');
  }

  /** The row and the creation's hook in one transaction, under the record's lock. */
  private async reserve(access: VaultAccess, upload: NewUpload, onCreate: CreationHook | undefined): Promise<void> {
    await this.tx.run(async (tx) => {
      const record = await this.changes.lock(tx, access);
      await this.quota.assertRoomForBytes(tx, access.vault.id, upload.length).catch((err: unknown) => {
        throw err instanceof ProblemException && err.code === FILE_ERROR_CODES.storageQuotaExceeded
          ? uploadExceedsVaultStorage()
          : err;
      });
      const row: ResumableUploadEntity = {
        ...upload,
        recordId: record.id,
        tenantId: record.tenantId,
      };
      await this.uploads.insert(tx, row);
      await onCreate?.(tx, row);
    });
  }
}
