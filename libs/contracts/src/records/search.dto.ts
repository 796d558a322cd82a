import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { FILE_TYPES, type FileType } from '../enums';

/** Longest query text `GET /search` accepts (a longer one is a 400, docs/search.md). */
export const SEARCH_QUERY_MAX_LENGTH = 500;
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 50;

/** Text search configurations a vault's content can be indexed with (docs/search.md, Languages). */
export const SEARCH_LANGUAGES = ['simple', 'english', 'german', 'french', 'spanish'] as const;
export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

/** What became of a file version's text: extracted, unsearchable with a reason, or not indexed. */
export const TEXT_STATUSES = ['pending', 'extracted', 'failed', 'skipped'] as const;
export type TextStatus = (typeof TEXT_STATUSES)[number];

/** GET /search query (docs/search.md). */
export class SearchQueryDto {
  @ApiProperty({
    description:
      'Words to find, web-search syntax: "a phrase", -excluded, or. Accents and umlauts are folded ' +
      '(Büro finds Buero); a word of 3 letters or more also finds it inside longer words.',
    maxLength: SEARCH_QUERY_MAX_LENGTH,
    example: 'flood cover -draft',
  })
  @IsString()
  @IsNotEmpty()
  @Matches(/\S/, { message: 'q must contain a word' })
  @MaxLength(SEARCH_QUERY_MAX_LENGTH)
  q!: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only this vault (one the caller may read).' })
  @IsOptional()
  @IsUUID()
  vaultId?: string;

  @ApiPropertyOptional({ description: 'Only records of this record type name, e.g. identityDocs.', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  recordType?: string;

  @ApiPropertyOptional({ enum: FILE_TYPES })
  @IsOptional()
  @IsIn(FILE_TYPES)
  fileType?: FileType;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page (same query and filters).', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  cursor?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: SEARCH_MAX_LIMIT, default: SEARCH_DEFAULT_LIMIT })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(SEARCH_MAX_LIMIT)
  limit?: number;
}

/** One page of a file version that matches a search. */
export class SearchHitDto {
  @ApiProperty({ format: 'uuid' }) vaultId!: string;
  @ApiProperty({ format: 'uuid' }) recordId!: string;
  @ApiProperty() recordName!: string;
  @ApiProperty() fileName!: string;
  @ApiProperty({ format: 'uuid', description: 'The file version whose text matched (its extraction).' })
  versionId!: string;
  @ApiProperty({ description: '1-based page (PDF page, or section of a long text).' }) page!: number;
  @ApiProperty({
    description: 'Text around the matches, HTML-escaped, with the matched words in <mark></mark>.',
    example: 'the policy covers <mark>flood</mark> damage',
  })
  snippet!: string;
  @ApiProperty({ description: 'Relevance, higher is better; only comparable within one query.' }) score!: number;
}

export class SearchPageDto {
  @ApiProperty({ type: [SearchHitDto] }) data!: SearchHitDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Cursor of the next page; null on the last page.' })
  nextCursor!: string | null;
}

/** One page of a file version's extracted text. */
export class FileTextPageDto {
  @ApiProperty() page!: number;
  @ApiProperty({ description: 'The text read from the page.' }) text!: string;
  @ApiProperty({ description: 'Whether the text was read by OCR (no usable text layer).' }) ocr!: boolean;
}

/** GET …/record-files/{name}/text. */
export class FileTextDto {
  @ApiProperty() fileName!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'The file version the text was read from.' })
  versionId!: string | null;
  @ApiProperty({ enum: TEXT_STATUSES }) status!: TextStatus;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Why the file is not searchable: encrypted, corrupt, too_large, too_many_pages, timeout, ...',
  })
  reason!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Media type sniffed from the bytes.' })
  detectedType!: string | null;
  @ApiProperty({ enum: SEARCH_LANGUAGES }) language!: SearchLanguage;
  @ApiProperty({ type: [FileTextPageDto] }) pages!: FileTextPageDto[];
}

/** GET/PUT /vault/vault-id/{vaultId}/search-settings. */
export class SearchSettingsDto {
  @ApiProperty({
    description:
      "Whether the text of this vault's files is extracted and indexed. Extracted text is stored unencrypted " +
      'beside the index; false removes it and stops extraction.',
  })
  @IsBoolean()
  contentIndexing!: boolean;

  @ApiProperty({ enum: SEARCH_LANGUAGES, description: 'Language of stemming for this vault (simple: none).' })
  @IsIn(SEARCH_LANGUAGES)
  language!: SearchLanguage;
}
