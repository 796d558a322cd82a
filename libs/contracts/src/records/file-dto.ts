import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { FILE_TYPES, type FileType } from '../enums';

/** Request header carrying the client's SHA-256 of the file (64 hex digits or 44 base64 characters). */
export const FILE_CHECKSUM_HEADER = 'x-checksum-sha256';

/**
 * A file name: 1 to 255 characters, no path separators, no control characters,
 * not `.` or `..`. It is a label only, never a storage path.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what the pattern refuses
const FILE_NAME_PATTERN = /^(?!\.{1,2}$)[^/\\\u0000-\u001f\u007f]{1,255}$/;

const IMAGE: FileType = 'image';

/**
 * Fields shared by upload and update. `caption` is mandatory for images: on upload the
 * body's fileType decides, on update the stored file's type (checked by the service).
 */
class CaptionedFileFields {
  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  uploadDetail?: string;

  @ApiPropertyOptional({ description: 'Mandatory for images.', maxLength: 1000 })
  @ValidateIf((o: { fileType?: FileType; caption?: unknown }) => o.fileType === IMAGE || o.caption !== undefined)
  @IsString()
  @IsNotEmpty({ message: 'caption is required for images' })
  @MaxLength(1000)
  caption?: string;

  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  uploadTitle?: string;
}

/**
 * Upload metadata (docs/files.md, Upload): as query parameters or as multipart fields sent
 * before the `file` part. A field given both ways must hold the same value.
 */
export class UploadFileMetadataDto extends CaptionedFileFields {
  @ApiProperty({ description: 'Unique within the record; a label, never a storage path.', maxLength: 255 })
  @IsString()
  @Matches(FILE_NAME_PATTERN, {
    message: 'fileName must be 1 to 255 characters without /, \\ or control characters',
  })
  fileName!: string;

  @ApiProperty({ description: 'Groups the files of one submission.', maxLength: 100 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  correlationId!: string;

  @ApiProperty({ enum: FILE_TYPES })
  @IsIn(FILE_TYPES)
  fileType!: FileType;

  @ApiPropertyOptional({ description: 'Extension such as ".pdf".', maxLength: 20 })
  @IsOptional()
  @IsString()
  @Matches(/^\.?[A-Za-z0-9]{1,19}$/, { message: 'fileExtension must be letters and digits, optionally dotted' })
  fileExtension?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description:
      'true: a file of this name becomes a new current version instead of 409 file_name_taken (docs/files.md, Versions). ' +
      'In tus Upload-Metadata the key alone means true.',
  })
  @IsOptional()
  @IsIn(['true', 'false', ''], { message: 'replace must be true or false' })
  replace?: string;
}

/** Whether upload metadata asks to replace a file of the same name (`replace=true`, or the tus key alone). */
export const replacesExisting = (m: { replace?: string }): boolean => m.replace === 'true' || m.replace === '';

/** PUT body: metadata only. */
export class UpdateFileDto extends CaptionedFileFields {
  @ApiProperty({
    description: 'Mandatory: the submission the file belongs to; a value other than the stored one is 409 stale_correlation_id.',
    maxLength: 100,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  correlationId!: string;
}

/** One file in the list (docs/files.md, List). */
export class RecordFileListItem {
  @ApiProperty({ description: 'Name exactly as written in the contract.' }) cloaudStorage!: boolean;
  @ApiProperty() active!: boolean;
  @ApiProperty() fileName!: string;
  @ApiProperty({ nullable: true, type: String }) caption!: string | null;
  @ApiProperty({ enum: FILE_TYPES }) fileType!: FileType;
  @ApiProperty({ description: 'Download path relative to the API base address.' }) fileUrl!: string;
  @ApiProperty() uploader!: string;
  @ApiProperty({ description: 'Bytes.' }) fileSize!: number;
  @ApiProperty() updatedAt!: string;
}

/** One entry of a record lookup's `filesHistory`: a list item with its submission. */
export class RecordFileHistoryEntry extends RecordFileListItem {
  @ApiProperty() correlationId!: string;
  @ApiProperty({ nullable: true, type: String }) uploadTitle!: string | null;
}

/** Files of one submission. */
export class RecordFileGroup {
  @ApiProperty() correlationId!: string;
  @ApiProperty({ nullable: true, type: String }) uploadTitle!: string | null;
  @ApiProperty({ enum: FILE_TYPES }) fileType!: FileType;
  @ApiProperty({ type: [RecordFileListItem] }) files!: RecordFileListItem[];
}

/** Record file, as every file route answers it (docs/files.md). */
export class RecordFileView extends RecordFileListItem {
  @ApiProperty() id!: string;
  @ApiProperty({ description: 'Same as id.' }) _id!: string;
  @ApiProperty() correlationId!: string;
  @ApiProperty({ nullable: true, type: String }) uploadDetail!: string | null;
  @ApiProperty({ nullable: true, type: String }) uploadTitle!: string | null;
  @ApiProperty({ nullable: true, type: String }) fileExtension!: string | null;
  @ApiProperty({ description: 'Id of the record the file belongs to.' }) recordDetail!: string;
  @ApiProperty() createdAt!: string;
  @ApiProperty({ description: 'Revision: 0 at upload, +1 per metadata update.' }) __v!: number;
}
