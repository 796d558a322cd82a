import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, MaxLength, ValidateIf } from 'class-validator';
import { FILTER_LOCALES, RECORD_STATUSES, type FilterLocale, type RecordStatus } from '../enums';
import { OTHER_SUBTYPE } from './features';
import { ReadOnlyEchoes } from './read-only-echoes';
import { CursorParam, DEFAULT_PAGE_SIZE, PageNumber, PageSize } from '../paging/page-info';
import { MAX_JSON_DEPTH, parseJsonObject } from '../http/json-body';

/** recordDetails sits one level below the body, so it keeps the body's depth limit either way. */
const DETAILS_DEPTH = MAX_JSON_DEPTH - 1;

/**
 * A JSON string holding an object is accepted for recordDetails (the update table types it
 * as string), under the rules of a JSON body (nesting depth, no prototype keys); a string
 * that breaks them stays a string, which the object check then refuses.
 */
function parseObjectString({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const parsed = parseJsonObject(value, DETAILS_DEPTH);
  return parsed.ok ? parsed.value : value;
}

const RECORD_DETAILS_MESSAGE = `recordDetails must be an object (or a JSON string of one) nested at most ${DETAILS_DEPTH} levels, without __proto__ or constructor keys`;

/** Record create and update body (docs/records-api.md, Records). */
export class RecordDto extends ReadOnlyEchoes {
  @ApiProperty({ maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiProperty({ description: 'May be an empty string.', maxLength: 10000 })
  @IsString()
  @MaxLength(10000)
  description!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  uniqueReference?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  storageLocation?: string | null;

  @ApiProperty({ description: 'A record type name of the catalogue.' })
  @IsString()
  @IsNotEmpty()
  recordTypeName!: string;

  @ApiProperty({ description: 'A subtype name of that record type.' })
  @IsString()
  @IsNotEmpty()
  recordSubtypeName!: string;

  @ApiPropertyOptional({ type: String, description: 'Required when recordSubtypeName is other.', nullable: true })
  @ValidateIf((o: RecordDto) => o.recordSubtypeName === OTHER_SUBTYPE || o.recordSubtypeOther != null)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  recordSubtypeOther?: string | null;

  @ApiPropertyOptional({ type: Boolean, nullable: true })
  @IsOptional()
  @IsBoolean()
  editable?: boolean | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true })
  @IsOptional()
  @Transform(parseObjectString)
  @IsObject({ message: RECORD_DETAILS_MESSAGE })
  recordDetails?: Record<string, unknown> | null;
}

/** Records a search page holds without pageSize. */
export const RECORD_SEARCH_DEFAULT_PAGE_SIZE = DEFAULT_PAGE_SIZE;

/** GET /vault/vault-id/{vaultId}/records query; every filter optional (docs/records-api.md, Records). */
export class RecordSearchQueryDto {
  @ApiPropertyOptional({ description: 'Case-insensitive substring of the record name.' })
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional({ description: 'Exact match.' })
  @IsOptional()
  @IsString()
  uniqueReference?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  recordTypeName?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  recordSubtypeName?: string;

  @ApiPropertyOptional({ description: 'Case-insensitive substring.' })
  @IsOptional()
  @IsString()
  recordSubtypeOther?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  recordTypeId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  recordSubtypeId?: string;

  @ApiPropertyOptional({ enum: RECORD_STATUSES, description: 'Without it, DELETED records are left out.' })
  @IsOptional()
  @IsIn(RECORD_STATUSES)
  status?: RecordStatus;

  @ApiPropertyOptional({ enum: FILTER_LOCALES, description: 'Limits displayValue to this locale.' })
  @IsOptional()
  @IsIn(FILTER_LOCALES)
  locale?: FilterLocale;

  @PageNumber(
    'Pages the results: with `page`, `pageSize` or `cursor` the answer is `{data, page, nextCursor}` (RecordSearchPage); without any, the plain array.',
  )
  page?: number;

  @CursorParam('Continue with the page after the one that answered this `nextCursor` (same filters). Not together with `page`.')
  cursor?: string;

  @PageSize()
  pageSize?: number;
}

/** PUT .../records/record-id/{recordId}/transfer body. */
export class TransferRecordDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  destinationVaultId!: string;
}
