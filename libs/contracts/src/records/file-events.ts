import { IsIn, IsInt, IsString, Min } from 'class-validator';
import { FILE_TYPES, type FileType } from '../enums';
import { RecordChangedEvent } from './events';

/** vault.file.uploaded.v1, vault.file.updated.v1, vault.file.deleted.v1 */
export class FileChangedEvent extends RecordChangedEvent {
  @IsString()
  fileName!: string;

  @IsString()
  correlationId!: string;

  @IsIn(FILE_TYPES)
  fileType!: FileType;

  /** Bytes of the stored file. */
  @IsInt()
  @Min(0)
  fileSize!: number;
}
