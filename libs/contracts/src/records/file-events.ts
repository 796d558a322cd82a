import { IsIn, IsInt, IsOptional, IsString, Min } from 'class-validator';
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

/**
 * vault.file.text_extracted.v1: the text of a file version was read and indexed
 * (`status` extracted), or the file is unsearchable (`failed` with `reason`).
 */
export class FileTextExtractedEvent extends FileChangedEvent {
  /** The file version whose text this is. */
  @IsString()
  versionId!: string;

  @IsIn(['extracted', 'failed'])
  status!: 'extracted' | 'failed';

  /** Pages (or sections) read; 0 when failed. */
  @IsInt()
  @Min(0)
  pages!: number;

  /** Why a failed file is unsearchable (encrypted, corrupt, too_large, ...). */
  @IsOptional()
  @IsString()
  reason?: string;
}
