import type { RecordFileGroup, RecordFileListItem, RecordFileView } from '@vault/contracts';
import { versionETag } from '@vault/platform/http';
import type { RecordFileEntity } from '../../persistence/record-files/record-file.entity';

/** The ETag of a file's metadata: its id and revision (`__v`; 0 at upload, +1 per update). */
export const fileETag = (f: { id: string; revision: number }): string => versionETag(f.id, f.revision);

/** Download path of a file, relative to the API base address (…/api/v1). */
export function fileUrl(vaultId: string, f: RecordFileEntity): string {
  return `/vault/vault-id/${vaultId}/records/record-id/${f.recordId}/record-files/${encodeURIComponent(f.fileName)}`;
}

export function toListItem(vaultId: string, f: RecordFileEntity): RecordFileListItem {
  return {
    cloaudStorage: f.fileType === 'cloud',
    active: f.active,
    fileName: f.fileName,
    caption: f.caption,
    fileType: f.fileType,
    fileUrl: fileUrl(vaultId, f),
    uploader: f.uploader,
    fileSize: f.size,
    updatedAt: f.updatedAt.toISOString(),
  };
}

/** Record file, as every file route answers it (docs/files.md). */
export function toFileView(vaultId: string, f: RecordFileEntity): RecordFileView {
  return {
    id: f.id,
    _id: f.id,
    ...toListItem(vaultId, f),
    correlationId: f.correlationId,
    uploadDetail: f.uploadDetail,
    uploadTitle: f.uploadTitle,
    fileExtension: f.fileExtension,
    recordDetail: f.recordId,
    createdAt: f.createdAt.toISOString(),
    __v: f.revision,
  };
}

/** Files grouped by submission, in upload order; groups newest first. */
export function toGroups(vaultId: string, files: RecordFileEntity[]): RecordFileGroup[] {
  const groups = new Map<string, RecordFileGroup>();
  for (const f of files) {
    let g = groups.get(f.correlationId);
    if (!g) {
      g = { correlationId: f.correlationId, uploadTitle: f.uploadTitle, fileType: f.fileType, files: [] };
      groups.set(f.correlationId, g);
    }
    g.files.push(toListItem(vaultId, f));
  }
  return [...groups.values()].reverse();
}
