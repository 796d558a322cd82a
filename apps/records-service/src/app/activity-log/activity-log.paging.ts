import { ActivityLogPageInfoDto, LOG_PAGE_WINDOW } from '@vault/contracts';

/**
 * The page object of a 1-based page. An empty result still has one (empty)
 * page. `pages` lists at most `window` page numbers around the current page:
 * the window starts at 1 while the current page is in its first half, ends at
 * the last page near the end, and otherwise has the current page at position
 * floor(window / 2) + 1. `startIndex`/`endIndex` are the 0-based positions of
 * the first and last item of the page (endIndex < startIndex for a page past
 * the end).
 */
export function pageInfo(
  totalItems: number,
  currentPage: number,
  pageSize: number,
  window = LOG_PAGE_WINDOW,
): ActivityLogPageInfoDto {
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
