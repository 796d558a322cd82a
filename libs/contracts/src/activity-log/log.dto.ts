import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import {
  FILTER_LOCALES,
  LOG_ENTITIES,
  LOG_EVENT_TYPES,
  type FilterLocale,
  type LogEntity,
  type LogEventType,
} from '../enums';

export const LOG_DEFAULT_PAGE_SIZE = 20;
export const LOG_MAX_PAGE_SIZE = 100;
/** Page numbers listed in `page.pages` at most (a window around the current page). */
export const LOG_PAGE_WINDOW = 10;

/** Query of GET /vault/vault-id/{vaultId}/log (DESIGN §7 names). */
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

  @ApiPropertyOptional({ minimum: 1, default: 1, description: '1-based page number.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: LOG_MAX_PAGE_SIZE, default: LOG_DEFAULT_PAGE_SIZE })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(LOG_MAX_PAGE_SIZE)
  pageSize?: number;
}

/** One activity log entry (contract §2.15). */
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

/** Page object (contract §2.15). Indexes are 0-based item positions; pages are 1-based. */
export class ActivityLogPageInfoDto {
  @ApiProperty() totalItems!: number;
  @ApiProperty() currentPage!: number;
  @ApiProperty() pageSize!: number;
  @ApiProperty() totalPages!: number;
  @ApiProperty() startPage!: number;
  @ApiProperty() endPage!: number;
  @ApiProperty() startIndex!: number;
  @ApiProperty() endIndex!: number;
  @ApiProperty({ type: [Number] }) pages!: number[];
}

export class ActivityLogPageDto {
  @ApiProperty({ type: [ActivityLogEntryDto] })
  data!: ActivityLogEntryDto[];

  @ApiProperty({ type: ActivityLogPageInfoDto })
  page!: ActivityLogPageInfoDto;
}
