import { Type } from 'class-transformer';
import { IsNotEmpty, IsString, ValidateNested } from 'class-validator';
import { SUBJECTS } from '../events';
import { EventRecordRef, VaultEventBase } from '../records/events';

/** vault.file.uploaded.v1, vault.file.updated.v1, vault.file.deleted.v1 */
export class FileChangedEvent extends VaultEventBase {
  @ValidateNested()
  @Type(() => EventRecordRef)
  record!: EventRecordRef;

  /** File name with its extension, as the client named it. */
  @IsString()
  @IsNotEmpty()
  fileName!: string;
}

/** Event kinds of the file subjects, derived from the subject. */
export const FILE_EVENT_KINDS = {
  [SUBJECTS.fileUploaded]: { entity: 'File', eventType: 'Create' },
  [SUBJECTS.fileUpdated]: { entity: 'File', eventType: 'Update' },
  [SUBJECTS.fileDeleted]: { entity: 'File', eventType: 'Delete' },
} as const;
