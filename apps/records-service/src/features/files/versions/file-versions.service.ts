import { Injectable } from '@nestjs/common';
import { FileVersionView, Principal, SUBJECTS } from '@vault/contracts';
import { Transactions, Tx } from '@vault/platform/persistence';
import { routeRecordId, type VaultAccess } from '../../../capabilities/access/access.service';
import type { VersionWithBlob } from '../../../persistence/file-versions/file-version.entity';
import { FileVersionRepository } from '../../../persistence/file-versions/file-version.repository';
import type { RecordFileEntity } from '../../../persistence/record-files/record-file.entity';
import { RecordFileRepository } from '../../../persistence/record-files/record-file.repository';
import type { RecordEntity } from '../../../persistence/records/record.entity';
import type { DownloadSource } from '../download/file-download';
import { FileChanges } from '../file-changes';
import { fileNotFound } from '../files.errors';
import { versionNotFound } from './file-versions.errors';
import { VersionWriter } from './version-writer';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A version as the API shows it. */
export function toVersionView({ version: v, size, sha256 }: VersionWithBlob): FileVersionView {
  return {
    id: v.id,
    number: v.number,
    size,
    sha256,
    createdAt: v.createdAt.toISOString(),
    createdBy: v.createdByName,
    current: v.current,
    pinned: v.pinned,
    restoredFrom: v.restoredFrom,
  };
}

/** The versions of a record file: list, download one, restore one, pin or unpin (docs/files.md, Versions). */
@Injectable()
export class FileVersionsService {
  constructor(
    private readonly tx: Transactions,
    private readonly files: RecordFileRepository,
    private readonly versions: FileVersionRepository,
    private readonly writer: VersionWriter,
    private readonly changes: FileChanges,
  ) {}

  /** The live versions of the file, newest first. */
  async list(access: VaultAccess, fileName: string): Promise<FileVersionView[]> {
    const file = await this.files.find(routeRecordId(access), fileName);
    if (!file) throw fileNotFound();
    return (await this.versions.listLive(file.id)).map(toVersionView);
  }

  /** What a download of one version sends. */
  async source(access: VaultAccess, fileName: string, versionId: string): Promise<DownloadSource> {
    const file = await this.files.find(routeRecordId(access), fileName);
    if (!file) throw fileNotFound();
    const found = UUID.test(versionId) ? await this.versions.findLive(file.id, versionId) : null;
    if (!found) throw versionNotFound();
    const { version, size, sha256, storageKey } = found;
    return { fileName: file.fileName, mediaType: version.mediaType, size, sha256, storageKey, createdAt: version.createdAt };
  }

  /** A new current version with the bytes of `versionId` (a new reference to its blob, no copy). */
  async restore(access: VaultAccess, principal: Principal, fileName: string, versionId: string): Promise<FileVersionView> {
    return this.tx.run(async (tx) => {
      const { record, file, found } = await this.lockVersion(tx, access, fileName, versionId);
      const created = await this.writer.next(tx, access.vault.id, file, {
        blob: { id: found.version.blobId, size: found.size, sha256: found.sha256, storageKey: found.storageKey },
        mediaType: found.version.mediaType,
        principal,
        restoredFrom: found.version.id,
      });
      await this.changes.publish(tx, SUBJECTS.fileVersionRestored, principal, access, record, file, {
        versionId: created.id,
        versionNumber: created.number,
        sha256: found.sha256,
        restoredFromVersionId: found.version.id,
      });
      return toVersionView({ ...found, version: created });
    });
  }

  /** Pins or unpins a version; an unpinned one may be thinned at once. */
  async pin(
    access: VaultAccess,
    principal: Principal,
    fileName: string,
    versionId: string,
    pinned: boolean,
  ): Promise<FileVersionView> {
    return this.tx.run(async (tx) => {
      const { file, found } = await this.lockVersion(tx, access, fileName, versionId);
      await this.versions.setPinned(tx, versionId, pinned);
      if (!pinned) await this.writer.thin(tx, access.vault.id, file.id, principal);
      const now = await this.versions.findLive(file.id, versionId, tx);
      return toVersionView(now ?? { ...found, version: { ...found.version, pinned } });
    });
  }

  /** Locks the vault, the record and the file of the route, and finds the live version. */
  private async lockVersion(
    tx: Tx,
    access: VaultAccess,
    fileName: string,
    versionId: string,
  ): Promise<{ record: RecordEntity; file: RecordFileEntity; found: VersionWithBlob }> {
    const record = await this.changes.lock(tx, access);
    const file = await this.files.lock(tx, record.id, fileName);
    if (!file) throw fileNotFound();
    const found = UUID.test(versionId) ? await this.versions.findLive(file.id, versionId, tx) : null;
    if (!found) throw versionNotFound();
    return { record, file, found };
  }
}
