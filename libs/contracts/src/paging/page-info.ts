import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** Items a page holds when the query names no pageSize, and at most. */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The optional 1-based `page` query parameter of a paged list. */
export const PageNumber = (description = '1-based page number.') =>
  applyDecorators(
    ApiPropertyOptional({ minimum: 1, default: 1, description }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(1_000_000),
  );

/** The optional `cursor` query parameter of a keyset-paged list: a `nextCursor` of an earlier answer. */
export const CursorParam = (description: string) =>
  applyDecorators(ApiPropertyOptional({ description, maxLength: 512 }), IsOptional(), IsString(), MaxLength(512));

/**
 * The one rule of every list (docs/openapi.md, "Lists"): the answer holds its items in `data`
 * and, at the top level, `nextCursor`: send it back as the `cursor` query parameter (same
 * filters) for the next page; null on the last page.
 */
export const NEXT_CURSOR_DESCRIPTION =
  'Continues the list: send it back as the `cursor` query parameter (same filters and pageSize) for the next page; ' +
  'null on the last page. Every list of the API answers `data` and `nextCursor` (docs/openapi.md, "Lists").';

/**
 * The `nextCursor` of a list paged by number (offset): the next page's number and size,
 * opaque to callers. Lists with a keyset cursor of their own (activity log, trash, search,
 * deliveries) do not use it.
 */
export const encodePageCursor = (page: number, pageSize: number): string =>
  Buffer.from(JSON.stringify(['page', page, pageSize])).toString('base64url');

/** The page a cursor of `encodePageCursor` continues with; null when it is not one (a 400 for the caller). */
export function decodePageCursor(text: string): { page: number; pageSize: number } | null {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parts) || parts.length !== 3 || parts[0] !== 'page') return null;
  const [, page, pageSize] = parts as [string, unknown, unknown];
  const ok = (n: unknown, max: number): n is number => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= max;
  return ok(page, 1_000_000) && ok(pageSize, MAX_PAGE_SIZE) ? { page, pageSize } : null;
}

/** The top-level `nextCursor` of a list answer (string, or null on the last page). */
export const NextCursor = () => ApiProperty({ type: String, nullable: true, description: NEXT_CURSOR_DESCRIPTION });

/** The optional `pageSize` query parameter of a paged list (1 to MAX_PAGE_SIZE). */
export const PageSize = () =>
  applyDecorators(
    ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(1),
    Max(MAX_PAGE_SIZE),
  );

/** Page numbers a page object lists around the current page at most. */
export const PAGE_WINDOW = 10;

/**
 * The page object of paged lists (docs/activity-log.md, Paging rules): indexes are
 * 0-based item positions, pages are 1-based.
 */
export class PageInfoDto {
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

/**
 * The page object of a 1-based page. An empty result still has one (empty)
 * page. `pages` lists at most `window` page numbers around the current page:
 * the window starts at 1 while the current page is in its first half, ends at
 * the last page near the end, and otherwise has the current page at position
 * floor(window / 2) + 1. `startIndex`/`endIndex` are the 0-based positions of
 * the first and last item of the page (endIndex < startIndex for a page past
 * the end).
 */
export function pageInfo(totalItems: number, currentPage: number, pageSize: number, window = PAGE_WINDOW): PageInfoDto {
  const totalPages = Math.max(1, Math.ceil(totalItems / pageSize));
  const anchor = Math.min(currentPage, totalPages);
  let startPage: number;
  let endPage: number;
  if (totalPages <= window) {
    startPage = 1;
    endPage = totalPages;
  } else {
    const before = Math.floor(window / 2);
    const after = Math.ceil(window / 2) - 1;
    if (anchor <= before) {
      startPage = 1;
      endPage = window;
    } else if (anchor + after >= totalPages) {
      startPage = totalPages - window + 1;
      endPage = totalPages;
    } else {
      startPage = anchor - before;
      endPage = anchor + after;
    }
  }
  const startIndex = (currentPage - 1) * pageSize;
  const endIndex = Math.min(startIndex + pageSize, totalItems) - 1;
  const pages = Array.from({ length: endPage - startPage + 1 }, (_, i) => startPage + i);
  return { totalItems, currentPage, pageSize, totalPages, startPage, endPage, startIndex, endIndex, pages };
}
