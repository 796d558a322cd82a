import { availableParallelism } from 'node:os';
import { ToInt } from '@vault/platform/config';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { EventsEnv, RUN_MODES, type RunMode } from '../../capabilities/events/events.env';

/** Settings of content search: the extraction pipeline, its limits, the switches (docs/search.md). */
export class SearchEnv extends EventsEnv {
  /** `inline`: this process extracts text; `off`: `node main.js text-extraction` processes do. */
  @IsIn(RUN_MODES)
  SEARCH_EXTRACTION: RunMode = 'inline';

  /** `off`: no file of any tenant is indexed (extracted text is stored unencrypted). */
  @IsIn(['on', 'off'])
  SEARCH_CONTENT_INDEXING: 'on' | 'off' = 'on';

  /** Tenants whose files are never indexed, comma-separated. */
  @IsOptional()
  @IsString()
  SEARCH_TENANTS_WITHOUT_INDEXING = '';

  /**
   * Extractor processes of this process (files read at the same time): by default one per
   * core but one (left to the service and PostgreSQL), at least 1, at most 4.
   */
  @ToInt() @IsInt() @Min(1) @Max(16) SEARCH_EXTRACTORS = Math.min(4, Math.max(1, availableParallelism() - 1));
  @ToInt() @IsInt() @Min(1) SEARCH_MAX_FILE_MB = 50;
  @ToInt() @IsInt() @Min(1) SEARCH_MAX_PAGES = 2000;
  @ToInt() @IsInt() @Min(1000) SEARCH_MAX_PAGE_CHARS = 100_000;
  @ToInt() @IsInt() @Min(1) SEARCH_MAX_INFLATED_MB = 200;
  @ToInt() @IsInt() @Min(1000) SEARCH_EXTRACT_TIMEOUT_MS = 120_000;
  @ToInt() @IsInt() @Min(64) SEARCH_EXTRACTOR_HEAP_MB = 512;
  @ToInt() @IsInt() @Min(128) SEARCH_EXTRACTOR_MAX_RSS_MB = 1024;
  @ToInt() @IsInt() @Min(1) @Max(20) SEARCH_MAX_ATTEMPTS = 3;
  @ToInt() @IsInt() @Min(50) SEARCH_POLL_MS = 2000;

  /** `off`: pages without a text layer and images stay unread. */
  @IsIn(['on', 'off'])
  SEARCH_OCR: 'on' | 'off' = 'on';

  /** Letters a PDF page's text layer needs, else it is OCR'd. */
  @ToInt() @IsInt() @Min(0) SEARCH_OCR_MIN_CHARS = 20;

  /** Script of the extractor processes; empty: this process's main script. */
  @IsOptional()
  @IsString()
  SEARCH_EXTRACTOR_SCRIPT = '';

  /** Node options of the extractor processes, space-separated (tests: a TypeScript loader). */
  @IsOptional()
  @IsString()
  SEARCH_EXTRACTOR_EXEC_ARGV = '';
}
