import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { CursorParam, DEFAULT_PAGE_SIZE, NextCursor, PageInfoDto, PageNumber, PageSize } from '../paging/page-info';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { FILTER_LOCALES, LOG_ENTITIES, LOG_EVENT_TYPES, type FilterLocale, type LogEntity, type LogEventType } from '../enums';

/** Entries a log page holds without pageSize. */
export const LOG_DEFAULT_PAGE_SIZE = DEFAULT_PAGE_SIZE;

/** Query of GET /vault/vault-id/{vaultId}/log (docs/activity-log.md, Query parameters). */
export class ActivityLogQueryDto {
  @ApiPropertyOptional({ enum: LOG_ENTITIES })
  @IsOptional()
  @IsIn(LOG_ENTITIES)
  entity?: LogEntity;

  @ApiPropertyOptional({ enum: LOG_EVENT_TYPES })
  @IsOptional()
  @IsIn(LOG_EVENT_TYPES)
  eventType?: LogEventType;

  @ApiPropertyOptional({ description: 'Only entries caused by this openId.' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  senderOpenId?: string;

  @ApiPropertyOptional({ enum: FILTER_LOCALES, default: 'en-US' })
  @IsOptional()
  @IsIn(FILTER_LOCALES)
  locale?: FilterLocale;

  @PageNumber()
  page?: number;

  @CursorParam(
    'Continue after the page that answered this `nextCursor` (keyset paging: each page costs the same ' +
      'however far into the log). Not together with `page`; the filters must be the same.',
  )
  cursor?: string;

  @PageSize()
  pageSize?: number;
}

/** One activity log entry (docs/activity-log.md, Entry fields). */
export class ActivityLogEntryDto {
  @ApiProperty({ description: 'Display name of the actor.' })
  user!: string;

  @ApiProperty({ description: 'Past-tense verb in the requested locale, e.g. "created".' })
  action!: string;

  @ApiProperty({ enum: LOG_ENTITIES })
  entity!: LogEntity;

  @ApiProperty({ format: 'uuid' })
  vaultId!: string;

  @ApiProperty()
  vaultName!: string;

  @ApiProperty({ description: 'When it happened, human-readable in the requested locale (UTC).' })
  time!: string;

  @ApiProperty({ format: 'date-time' })
  rawTime!: string;

  @ApiProperty({ format: 'uuid', description: 'Event id.' })
  id!: string;

  @ApiProperty({ nullable: true, type: String })
  recordId!: string | null;

  @ApiProperty({ nullable: true, type: String })
  recordName!: string | null;

  @ApiProperty({ nullable: true, type: String })
  fileName!: string | null;

  @ApiProperty({
    description: 'Sentence with <b> markup around names; names are HTML-escaped.',
    example: '<b>Ann</b> created the record <b>Passport</b>',
  })
  message!: string;
}

/** Page object of the activity log (docs/activity-log.md, Paging rules), with the keyset cursor. */
export class ActivityLogPageInfoDto extends PageInfoDto {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The same value as the top-level `nextCursor` (kept here for callers that read the page object).',
  })
  nextCursor!: string | null;
}

/** `{data, page}` (the contract's page) with the top-level `nextCursor` of every list. */
export class ActivityLogPageDto {
  @ApiProperty({ type: [ActivityLogEntryDto] })
  data!: ActivityLogEntryDto[];

  @ApiProperty({ type: ActivityLogPageInfoDto })
  page!: ActivityLogPageInfoDto;

  @NextCursor()
  nextCursor!: string | null;
}
