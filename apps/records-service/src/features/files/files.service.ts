import { Injectable } from '@nestjs/common';
import { Principal, RecordFileGroup, RecordFileView, SUBJECTS, UpdateFileDto } from '@vault/contracts';
import { ETagged, IfMatchCondition } from '@vault/platform/http';
import { routeRecordId, type VaultAccess } from '../../capabilities/access/access.service';
import { RecordFileEntity } from '../../persistence/record-files/record-file.entity';
import { RecordFileRepository } from '../../persistence/record-files/record-file.repository';
import { Transactions } from '@vault/platform/persistence';
import { Trasher } from '../../capabilities/retention/trasher';
import { FileChanges } from './file-changes';
import { captionRequired, fileNotFound, staleCorrelationId } from './files.errors';
import { fileETag, toFileView, toGroups } from './record-file.view';

/** Record files once uploaded: list, find for download, metadata update, delete. */
@Injectable()
export class FilesService {
  constructor(
    private readonly tx: Transactions,
    private readonly files: RecordFileRepository,
    private readonly changes: FileChanges,
    private readonly trasher: Trasher,
  ) {}

  async list(access: VaultAccess): Promise<RecordFileGroup[]> {
    return toGroups(access.vault.id, await this.files.list(routeRecordId(access)));
  }

  /** The file of the route, for download (404 when the record has no such file). */
  async find(access: VaultAccess, fileName: string): Promise<RecordFileEntity> {
    const file = await this.files.find(routeRecordId(access), fileName);
    if (!file) throw fileNotFound();
    return file;
  }

  /**
   * Metadata update; the caller's correlationId must be the stored one (else 409 stale),
   * and `ifMatch` name its current revision (checked under the row lock).
   */
  async update(
    access: VaultAccess,
    principal: Principal,
    fileName: string,
    dto: UpdateFileDto,
    ifMatch = IfMatchCondition.absent,
  ): Promise<ETagged<RecordFileView>> {
    return this.tx.run(async (tx) => {
      const record = await this.changes.lock(tx, access);
      const file = await this.files.lock(tx, record.id, fileName);
      if (!file) throw fileNotFound();
      ifMatch.assert(fileETag(file));
      if (dto.correlationId !== file.correlationId) throw staleCorrelationId();
      if (file.fileType === 'image' && !dto.caption) throw captionRequired();
      if (dto.uploadDetail !== undefined) file.uploadDetail = dto.uploadDetail;
      if (dto.caption !== undefined) file.caption = dto.caption;
      if (dto.uploadTitle !== undefined) file.uploadTitle = dto.uploadTitle;
      file.revision += 1;
      file.updatedAt = new Date();
      await this.files.save(tx, file);
      await this.changes.publish(tx, SUBJECTS.fileUpdated, principal, access, record, file);
      return new ETagged(toFileView(access.vault.id, file), fileETag(file));
    });
  }

  /**
   * Moves the file to the trash (docs/files.md, Trash): it leaves every read and frees its
   * name now; its bytes stay (and count toward the quota) until it is purged.
   */
  async remove(
    access: VaultAccess,
    principal: Principal,
    fileName: string,
    ifMatch = IfMatchCondition.absent,
  ): Promise<RecordFileView> {
    const file = await this.tx.run(async (tx) => {
      const record = await this.changes.lock(tx, access);
      const found = await this.files.lock(tx, record.id, fileName);
      if (!found) throw fileNotFound();
      ifMatch.assert(fileETag(found));
      await this.changes.publish(tx, SUBJECTS.fileDeleted, principal, access, record, found);
      await this.trasher.trashFile(tx, access.vault, record, found, principal);
      return found;
    });
    return toFileView(access.vault.id, file);
  }
}
