import { Injectable } from '@nestjs/common';
import type { Hash } from 'node:crypto';
import type { Principal } from '@vault/contracts';
import type { VaultAccess } from '../../../capabilities/access/access.service';
import { AppendProgress, FileBytesService } from '../../../capabilities/storage/file-bytes.service';
import { ResumableUploadEntity } from '../../../persistence/resumable-uploads/resumable-upload.entity';
import { ResumableUploadRepository } from '../../../persistence/resumable-uploads/resumable-upload.repository';
import { checksumMismatch } from '../files.errors';
import { UploadService } from '../upload/upload.service';

/** Response headers of the PATCH (or POST) that completed an upload: the record file it became. */
export const RECORD_FILE_ID_HEADER = 'Record-File-Id';
export const RECORD_FILE_URL_HEADER = 'Record-File-Url';

/** Where an upload's bytes stand in storage, as the storage port appends to them. */
export function progressOf(row: ResumableUploadEntity): AppendProgress {
  return {
    storageKey: row.storageKey,
    offset: row.offset,
    length: row.length,
    state: row.storeState,
  };
}

/**
 * The completion step of a resumable upload (ResumableUploadService.finish): the object is
 * completed in storage, its SHA-256 compared with the `sha256` metadata, and the record file
 * committed exactly as a multipart upload's. Any refusal removes the bytes; the upload ends
 * either way.
 */
@Injectable()
export class ResumableCompletion {
  constructor(
    private readonly uploads: ResumableUploadRepository,
    private readonly bytes: FileBytesService,
    private readonly commits: UploadService,
  ) {}

  /**
   * Commits the complete upload `row` as a record file; `hashed` is the running SHA-256 of
   * all its bytes when this instance has it, else the object is read back once. Answers the
   * headers that name the record file.
   */
  async complete(
    access: VaultAccess,
    principal: Principal,
    row: ResumableUploadEntity,
    hashed: Hash | undefined,
  ): Promise<Record<string, string>> {
    const { sha256, seal } = await this.completed(row, hashed, access.vault.id);
    try {
      const view = await this.commits.commit(
        access,
        principal,
        {
          metadata: row.metadata,
          stored: { storageKey: row.storageKey, size: row.length, sha256, ...seal },
          mediaType: row.mediaType,
        },
        undefined,
      );
      return {
        [RECORD_FILE_ID_HEADER]: view.id,
        [RECORD_FILE_URL_HEADER]: view.fileUrl,
      };
    } finally {
      // committed or refused (the commit removed the bytes then): the upload is over either way
      await this.uploads.delete(row.id);
    }
  }

  /**
   * The completed object's SHA-256, checked against the `sha256` metadata, and its envelope
   * for a blob of `vaultId` (rewrapped when the record moved there while the upload was open).
   */
  private async completed(row: ResumableUploadEntity, hashed: Hash | undefined, vaultId: string) {
    try {
      await this.bytes.finishAppend(progressOf(row));
      const sha256 = hashed ? hashed.digest('hex') : await this.bytes.sha256OfAppended(progressOf(row));
      if (row.expectedSha256 !== null && row.expectedSha256 !== sha256) throw checksumMismatch('sha256 metadata');
      return { sha256, seal: await this.bytes.sealFor(progressOf(row), vaultId) };
    } catch (err) {
      await this.uploads.delete(row.id);
      await this.bytes.discard(row.storageKey);
      throw err;
    }
  }
}
