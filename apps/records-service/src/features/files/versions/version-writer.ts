import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import type { Tx } from '@vault/platform/persistence';
import { actorName } from '../../../capabilities/events/event-payload';
import { QuotaService } from '../../../capabilities/plans/quota.service';
import { RetentionService } from '../../../capabilities/retention/retention.service';
import type { StoredBytes } from '../../../capabilities/storage/file-bytes.service';
import type { BlobEntity } from '../../../persistence/blobs/blob.entity';
import { BlobRepository } from '../../../persistence/blobs/blob.repository';
import type { FileVersionEntity } from '../../../persistence/file-versions/file-version.entity';
import { FileVersionRepository } from '../../../persistence/file-versions/file-version.repository';
import { PurgeQueueRepository } from '../../../persistence/record-files/purge-queue.repository';
import type { RecordFileEntity } from '../../../persistence/record-files/record-file.entity';
import { RecordFileRepository } from '../../../persistence/record-files/record-file.repository';
import { uploadExpired } from '../files.errors';

/** Stored bytes placed in a vault: the blob that holds them, and whether the upload's own copy is redundant. */
export interface PlacedBytes {
  blob: BlobEntity;
  /** The vault already held these bytes: the upload's copy is removed after the commit. */
  duplicate: boolean;
}

/** What a new version is made of. */
export interface NewVersion {
  blob: Pick<BlobEntity, 'id' | 'size' | 'sha256' | 'storageKey'>;
  mediaType: string;
  principal: Principal;
  restoredFrom?: string;
}

/**
 * The one writer of blobs and versions, inside the transaction of a file change that holds
 * the vault's lock (FileChanges.lock): places uploaded bytes in the vault's blob of their
 * SHA-256, makes versions current and thins the older ones (vault.fileVersions). Blob
 * reference counts and the removal of unreferenced bytes follow by trigger.
 */
@Injectable()
export class VersionWriter {
  constructor(
    private readonly blobs: BlobRepository,
    private readonly versions: FileVersionRepository,
    private readonly files: RecordFileRepository,
    private readonly purges: PurgeQueueRepository,
    private readonly quota: QuotaService,
    private readonly retention: RetentionService,
  ) {}

  /**
   * The blob of the uploaded bytes: the vault's existing one of the same SHA-256 (the
   * upload's copy stays queued for removal, due now; no quota used), or a new one under
   * the upload's key (taken off the queue). Refuses bytes beyond the vault's quota, and an
   * upload whose queued removal already ran (503 upload_expired).
   */
  async placeBytes(tx: Tx, vaultId: string, stored: StoredBytes): Promise<PlacedBytes> {
    const found = await this.blobs.lockBySha256(tx, vaultId, stored.sha256);
    await this.quota.assertRoomForBytes(tx, vaultId, found ? 0 : stored.size);
    if (found) {
      if (!(await this.purges.dueNow(stored.storageKey, tx))) throw uploadExpired();
      return { blob: found, duplicate: true };
    }
    if (!(await this.purges.dequeue(stored.storageKey, tx))) throw uploadExpired();
    const blob = await this.blobs.insert(tx, {
      id: randomUUID(),
      vaultId,
      sha256: stored.sha256,
      size: stored.size,
      storageKey: stored.storageKey,
      envelope: stored.envelope ?? null,
      envelopeVaultId: stored.envelopeVaultId ?? null,
    });
    return { blob, duplicate: false };
  }

  /** Version 1 of a file row just inserted. */
  async first(tx: Tx, file: RecordFileEntity, v: NewVersion): Promise<FileVersionEntity> {
    const version = this.version(file, 1, v);
    await this.versions.insert(tx, version);
    return version;
  }

  /**
   * A new current version of `file` (locked): the file row takes its bytes, media type
   * and a new revision; older unpinned versions beyond the plan's count go to the trash.
   */
  async next(tx: Tx, vaultId: string, file: RecordFileEntity, v: NewVersion): Promise<FileVersionEntity> {
    const version = this.version(file, (await this.versions.lastNumber(tx, file.id)) + 1, v);
    await this.versions.clearCurrent(tx, file.id);
    await this.versions.insert(tx, version);
    file.storageKey = v.blob.storageKey;
    file.size = v.blob.size;
    file.sha256 = v.blob.sha256;
    file.mediaType = v.mediaType;
    file.revision += 1;
    file.updatedAt = version.createdAt;
    await this.files.save(tx, file);
    await this.thin(tx, vaultId, file.id, v.principal);
    return version;
  }

  /** Moves the versions of a file beyond what the plan keeps to the trash (until vault.trashDays from now). */
  async thin(tx: Tx, vaultId: string, fileId: string, principal: Principal): Promise<void> {
    const keep = await this.quota.fileVersionsKept(tx, vaultId);
    await this.versions.trashBeyond(tx, fileId, keep, actorName(principal), await this.retention.purgeAt(tx, vaultId));
  }

  private version(file: RecordFileEntity, number: number, v: NewVersion): FileVersionEntity {
    return this.versions.create({
      id: randomUUID(),
      fileId: file.id,
      blobId: v.blob.id,
      number,
      mediaType: v.mediaType,
      current: true,
      pinned: false,
      restoredFrom: v.restoredFrom ?? null,
      createdAt: new Date(),
      createdBy: v.principal.openId,
      createdByName: actorName(v.principal),
      deletedAt: null,
      deletedBy: null,
      purgeAt: null,
    });
  }
}
