import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { CursorParam, PageSize } from '../paging/page-info';

/** What a trash entry is (docs/records-api.md, Trash). */
export const TRASH_ITEM_KINDS = ['vault', 'record', 'file'] as const;
export type TrashItemKind = (typeof TRASH_ITEM_KINDS)[number];

/** `onConflict` of a restore: refuse (`409 name_taken`, the default) or restore under a free name. */
export const RESTORE_CONFLICT_CHOICES = ['fail', 'rename'] as const;
export type RestoreConflictChoice = (typeof RESTORE_CONFLICT_CHOICES)[number];

/** GET /vault/vault-id/{vaultId}/trash and GET /trash query. */
export class TrashQueryDto {
  @CursorParam('The `nextCursor` of the previous page.')
  cursor?: string;

  @PageSize()
  pageSize?: number;
}

/** POST /trash/item-id/{itemId}/restore query. */
export class RestoreQueryDto {
  @ApiPropertyOptional({
    enum: RESTORE_CONFLICT_CHOICES,
    default: 'fail',
    description:
      'For a file whose name a live file took meanwhile: `fail` answers 409 name_taken, `rename` restores it as ' +
      '`name (1).ext` (the first free number).',
  })
  @IsOptional()
  @IsIn(RESTORE_CONFLICT_CHOICES)
  onConflict?: RestoreConflictChoice;
}

/** One item in a trash listing. */
export class TrashItemView {
  @ApiProperty({ format: 'uuid', description: 'The id of the vault, record or file: the `itemId` of restore and purge.' })
  id!: string;
  @ApiProperty({ enum: TRASH_ITEM_KINDS }) kind!: TrashItemKind;
  @ApiProperty({ description: 'Vault name, record name or file name.' }) name!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid', description: "The record (a file's record; null for a vault)." })
  recordId!: string | null;
  @ApiProperty({ type: String, format: 'uuid' }) vaultId!: string;
  @ApiProperty({ format: 'date-time' }) deletedAt!: string;
  @ApiProperty({ description: 'Who deleted it (username, or openId).' }) deletedBy!: string;
  @ApiProperty({
    format: 'date-time',
    description: 'When the purger removes it; a legal hold or the retention period may keep it longer.',
  })
  purgeAt!: string;
  @ApiProperty({ description: 'Bytes of the stored files it holds (a record: all its files; a vault: all of them).' })
  bytes!: number;
}

/** `{data, nextCursor}`: one page of a trash listing, newest deletion first. */
export class TrashPage {
  @ApiProperty({ type: [TrashItemView] }) data!: TrashItemView[];
  @ApiProperty({ type: String, nullable: true, description: 'Cursor of the next page (query `cursor`); null on the last.' })
  nextCursor!: string | null;
}

/** Answer of a restore: what came back and under which name. */
export class RestoredItemView {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: TRASH_ITEM_KINDS }) kind!: TrashItemKind;
  @ApiProperty({ description: 'Its name now (a file restored with onConflict=rename: the new name).' }) name!: string;
  @ApiProperty({ type: String, format: 'uuid' }) vaultId!: string;
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) recordId!: string | null;
}
