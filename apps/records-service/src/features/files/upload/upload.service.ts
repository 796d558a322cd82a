import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  FILE_CHECKSUM_HEADER,
  Principal,
  RecordFileView,
  replacesExisting,
  SUBJECTS,
  UploadFileMetadataDto,
} from '@vault/contracts';
import { mapUniqueViolation } from '@vault/platform/errors';
import { isIdempotentRepeat, settleIdempotencyFingerprint } from '@vault/platform/idempotency';
import type { Request, Response } from 'express';
import { routeRecordId, type VaultAccess } from '../../../capabilities/access/access.service';
import { actorName } from '../../../capabilities/events/event-payload';
import { FILE_NAME_INDEX, RecordFileRepository } from '../../../persistence/record-files/record-file.repository';
import { Transactions, Tx } from '@vault/platform/persistence';
import type { RecordFileEntity } from '../../../persistence/record-files/record-file.entity';
import type { RecordEntity } from '../../../persistence/records/record.entity';
import { payloadTooLarge, storageQuotaExceeded } from '../../../capabilities/plans/plans.errors';
import { QuotaService } from '../../../capabilities/plans/quota.service';
import { FileBytesService } from '../../../capabilities/storage/file-bytes.service';
import { FileChanges } from '../file-changes';
import { checksumMismatch, fieldsAfterFilePart, fileNameTaken, missingFilePart, notMultipart } from '../files.errors';
import { toFileView } from '../record-file.view';
import { NewVersion, PlacedBytes, VersionWriter } from '../versions/version-writer';
import { fieldSnapshot, formFields, MULTIPART_OVERHEAD_BYTES, readMultipart, sanitizeMediaType } from './multipart';
import { RecordFileStorageEngine } from './record-file-storage-engine';
import { expectedFileDigest, parseUploadMetadata } from './upload-metadata';
import { ReceivedFile, UploadState } from './upload-state';

/**
 * The one owner of an upload, from the first header to the committed metadata row:
 * 1. admit: the body must be multipart; the checksum header is read; what the headers
 *    already show to exceed the plan (per upload or the vault's room) is refused;
 * 2. receive: multer reads the parts; when the file part begins, the metadata read so
 *    far is validated, a taken name refused, and the bytes streamed to storage within
 *    the limits while their SHA-256 is computed; fields after the file part are refused;
 * 3. commit: checksum, quota and name are checked again under the vault lock, and the
 *    metadata row and its event are written in one transaction. Any refusal after the
 *    bytes are stored removes them at once.
 */
@Injectable()
export class UploadService {
  constructor(
    private readonly tx: Transactions,
    private readonly files: RecordFileRepository,
    private readonly changes: FileChanges,
    private readonly quota: QuotaService,
    private readonly bytes: FileBytesService,
    private readonly versions: VersionWriter,
  ) {}

  async receiveMultipart(access: VaultAccess, principal: Principal, req: Request, res: Response): Promise<RecordFileView> {
    const state = await this.admit(access, req);
    const engine = new RecordFileStorageEngine(
      (file) => this.receiveFilePart(state, req, file),
      (key) => this.bytes.discard(key),
    );
    await readMultipart(req, res, engine);
    const late = this.fieldsAfterFile(state, req);
    if (late.length > 0) {
      if (state.received) await this.bytes.discard(state.received.stored.storageKey);
      throw fieldsAfterFilePart(late);
    }
    if (!state.received) {
      // the metadata's own problems come first
      parseUploadMetadata(req.query as Record<string, unknown>, formFields(req));
      throw missingFilePart();
    }
    const { metadata, stored, mediaType } = state.received;
    try {
      // Idempotency-Key: what identifies this upload is its metadata and the bytes' SHA-256
      settleIdempotencyFingerprint(req, { metadata, mediaType, size: stored.size, sha256: stored.sha256 });
    } catch (err) {
      await this.bytes.discard(stored.storageKey);
      throw err;
    }
    return this.commit(state.access, principal, state.received, state.expectedSha256);
  }

  /** Step 1: refusals that need no byte of the body. */
  private async admit(access: VaultAccess, req: Request): Promise<UploadState> {
    if (!req.is('multipart/form-data')) throw notMultipart();
    const expectedSha256 = expectedFileDigest(req.headers);
    const limits = await this.quota.uploadLimits(access.vault.id);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limits.maxUploadBytes + MULTIPART_OVERHEAD_BYTES) throw payloadTooLarge(limits.maxUploadBytes);
    if (declared > limits.quotaRemainingBytes + MULTIPART_OVERHEAD_BYTES) throw storageQuotaExceeded();
    return { access, expectedSha256, limits };
  }

  /** Step 2: the file part, stored under the tighter of the two limits. */
  private async receiveFilePart(state: UploadState, req: Request, file: Express.Multer.File): Promise<ReceivedFile> {
    state.fieldsBeforeFile = fieldSnapshot(req);
    const metadata = parseUploadMetadata(req.query as Record<string, unknown>, formFields(req));
    // a repeat of a completed upload took the name itself: its fingerprint decides (replay or 422)
    const repeat = isIdempotentRepeat(req);
    if (!repeat && !replacesExisting(metadata) && (await this.files.nameTaken(routeRecordId(state.access), metadata.fileName)))
      throw fileNameTaken();
    const { maxUploadBytes, quotaRemainingBytes } = state.limits;
    const limit = Math.min(maxUploadBytes, quotaRemainingBytes);
    const overLimit = () => (limit === maxUploadBytes ? payloadTooLarge(maxUploadBytes) : storageQuotaExceeded());
    const stored = await this.bytes.store(file.stream, limit, overLimit, state.access.vault.id);
    state.received = { metadata, stored, mediaType: sanitizeMediaType(file.mimetype) };
    return state.received;
  }

  /**
   * Fields sent after the file part are never read as metadata (the file is stored by
   * then): they are refused, naming each one, rather than silently ignored.
   */
  private fieldsAfterFile(state: UploadState, req: Request): string[] {
    const before = state.fieldsBeforeFile;
    if (!before) return [];
    const now = fieldSnapshot(req);
    return Object.keys(now).filter((k) => before[k] !== now[k]);
  }

  /**
   * Step 3: makes stored bytes a record file, or with `replace` a new current version of
   * the file of that name: checks the client checksum, places the bytes in the vault's blob
   * of their SHA-256 (quota checked for new bytes only), writes the rows and the event in
   * one transaction. Any refusal removes the bytes at once; bytes the vault already held
   * are removed after the commit.
   */
  async commit(
    access: VaultAccess,
    principal: Principal,
    received: ReceivedFile,
    expectedSha256: string | undefined,
  ): Promise<RecordFileView> {
    const { stored } = received;
    let placed: PlacedBytes | undefined;
    try {
      if (expectedSha256 !== undefined && expectedSha256 !== stored.sha256)
        throw checksumMismatch(`${FILE_CHECKSUM_HEADER} or Repr-Digest`);
      const view = await this.tx.run(async (tx) => {
        const record = await this.changes.lock(tx, access);
        const existing = replacesExisting(received.metadata)
          ? await this.files.lock(tx, record.id, received.metadata.fileName)
          : null;
        placed = await this.versions.placeBytes(tx, access.vault.id, stored);
        const version = { blob: placed.blob, mediaType: received.mediaType, principal };
        if (existing) return this.replace(tx, access, record, existing, received, version);
        const file = this.newFile(record, principal, received, placed.blob);
        await this.files.insert(tx, file).catch((err) => mapUniqueViolation(err, { [FILE_NAME_INDEX]: fileNameTaken }));
        await this.versions.first(tx, file, version);
        await this.changes.publish(tx, SUBJECTS.fileUploaded, principal, access, record, file);
        return toFileView(access.vault.id, file);
      });
      if (placed?.duplicate) await this.bytes.purgeKey(stored.storageKey);
      return view;
    } catch (err) {
      await this.bytes.discard(stored.storageKey);
      throw err;
    }
  }

  /** A new current version of `file`, whose metadata the upload's replaces. */
  private async replace(
    tx: Tx,
    access: VaultAccess,
    record: RecordEntity,
    file: RecordFileEntity,
    received: ReceivedFile,
    version: NewVersion,
  ): Promise<RecordFileView> {
    Object.assign(file, metadataColumns(received.metadata));
    const created = await this.versions.next(tx, access.vault.id, file, version);
    await this.changes.publish(tx, SUBJECTS.fileVersionCreated, version.principal, access, record, file, {
      versionId: created.id,
      versionNumber: created.number,
      sha256: file.sha256,
    });
    return toFileView(access.vault.id, file);
  }

  private newFile(record: RecordEntity, principal: Principal, received: ReceivedFile, blob: PlacedBytes['blob']) {
    const now = new Date();
    return this.files.create({
      id: randomUUID(),
      recordId: record.id,
      tenantId: record.tenantId,
      ...metadataColumns(received.metadata),
      mediaType: received.mediaType,
      storageKey: blob.storageKey,
      size: blob.size,
      sha256: blob.sha256,
      uploader: actorName(principal),
      uploaderOpenId: principal.openId,
      active: true,
      revision: 0,
      createdAt: now,
      updatedAt: now,
    });
  }
}

/** The columns of a record file that upload metadata sets. */
function metadataColumns(meta: UploadFileMetadataDto): Partial<RecordFileEntity> {
  return {
    fileName: meta.fileName,
    correlationId: meta.correlationId,
    fileType: meta.fileType,
    uploadDetail: meta.uploadDetail ?? null,
    caption: meta.caption ?? null,
    uploadTitle: meta.uploadTitle ?? null,
    fileExtension: meta.fileExtension ?? null,
  };
}
