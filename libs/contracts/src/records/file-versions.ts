import { SUBJECTS } from '../events';
import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Min } from 'class-validator';
import { FileChangedEvent } from './file-events';

/** Subjects of file versions (docs/files.md, Versions); a first upload stays vault.file.uploaded.v1. */
export const FILE_VERSION_SUBJECTS = {
  /** An upload with `replace` made a new current version of an existing file. */
  fileVersionCreated: SUBJECTS.fileVersionCreated,
  /** A restore made a new current version from an older one (same bytes, no copy). */
  fileVersionRestored: SUBJECTS.fileVersionRestored,
} as const;

/** vault.file.version.created.v1, vault.file.version.restored.v1 */
export class FileVersionEvent extends FileChangedEvent {
  /** The new current version. */
  @IsString()
  versionId!: string;

  /** Its number among the file's versions (1 is the first upload). */
  @IsInt()
  @Min(1)
  versionNumber!: number;

  /** Lower-case hex SHA-256 of its bytes. */
  @Matches(/^[0-9a-f]{64}$/)
  sha256!: string;

  /** A restore: the version it was made from. */
  @IsOptional()
  @IsString()
  restoredFromVersionId?: string;
}

/** Payload class of each file version subject. */
export const FILE_VERSION_EVENT_PAYLOADS = {
  [FILE_VERSION_SUBJECTS.fileVersionCreated]: FileVersionEvent,
  [FILE_VERSION_SUBJECTS.fileVersionRestored]: FileVersionEvent,
} as const;

/** The entity, log event type and action (activity log) and the CloudEvents type of each file version subject. */
export const FILE_VERSION_EVENT_KINDS = {
  [FILE_VERSION_SUBJECTS.fileVersionCreated]: {
    entity: 'File',
    eventType: 'Update',
    action: 'versionCreated',
    type: 'file.version.created',
  },
  [FILE_VERSION_SUBJECTS.fileVersionRestored]: {
    entity: 'File',
    eventType: 'Update',
    action: 'versionRestored',
    type: 'file.version.restored',
  },
} as const;

/** One version of a record file (GET …/record-files/{name}/versions). */
export class FileVersionView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'Number among the versions of the file; 1 is the first upload.' }) number!: number;
  @ApiProperty({ description: 'Bytes.' }) size!: number;
  @ApiProperty({ description: 'Lower-case hex SHA-256 of the bytes (the download ETag, unquoted).' }) sha256!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ description: 'Who uploaded or restored it (display name).' }) createdBy!: string;
  @ApiProperty({ description: 'The version the file name downloads.' }) current!: boolean;
  @ApiProperty({ description: 'Pinned versions are never thinned by vault.fileVersions.' }) pinned!: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'A restore: the version it was made from.' })
  restoredFrom!: string | null;
}

/** PUT …/versions/version-id/{versionId}: pin or unpin. */
export class PinFileVersionDto {
  @ApiProperty({ description: 'true keeps the version whatever vault.fileVersions says; false lets it be thinned.' })
  @IsBoolean()
  pinned!: boolean;
}

/** GET /vault/vault-id/{vaultId}/usage: the storage a vault uses against its plan. */
export class VaultStorageUsageView {
  @ApiProperty({ description: 'vault.maxVaultGBs in bytes.' }) limitBytes!: number;
  @ApiProperty({ description: 'What counts against the limit: storedBytes + uploadingBytes.' }) usedBytes!: number;
  @ApiProperty({ description: 'Bytes stored, each distinct content of the vault once.' }) storedBytes!: number;
  @ApiProperty({ description: 'Of storedBytes: what the current versions of live files use.' }) currentBytes!: number;
  @ApiProperty({ description: 'Of storedBytes: what only older (live) versions use.' }) versionBytes!: number;
  @ApiProperty({ description: 'Of storedBytes: what only trashed files, records and versions use.' }) trashBytes!: number;
  @ApiProperty({ description: 'Reserved by resumable uploads still open (Upload-Length).' }) uploadingBytes!: number;
}
