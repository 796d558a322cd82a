import { COMMON_ERRORS, decodePageCursor, encodePageCursor, pageInfo, type PageInfoDto } from '@vault/contracts';
import { ProblemException } from '../errors/problem.exception';

/** The paging query of a list paged by number: `page`, `pageSize`, or the `cursor` of an earlier answer. */
export interface OffsetPageQuery {
  page?: number;
  pageSize?: number;
  cursor?: string;
}

/** The page a list paged by number answers, and whether the query asked for paging at all. */
export interface OffsetPage {
  paged: boolean;
  page: number;
  pageSize: number;
  offset: number;
}

const invalidCursor = (message: string) =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The cursor is not valid for this request.', {
    errors: [{ field: 'cursor', message }],
  });

/** Which page the query names (a `cursor` continues an earlier answer; with `page` too it is a 400). */
export function offsetPage(q: OffsetPageQuery, defaultPageSize: number): OffsetPage {
  if (q.cursor !== undefined && q.page !== undefined) throw invalidCursor('cursor and page cannot be sent together');
  const fromCursor = q.cursor === undefined ? undefined : decodePageCursor(q.cursor);
  if (fromCursor === null) throw invalidCursor('cursor must be the nextCursor of an earlier answer');
  const page = fromCursor?.page ?? q.page ?? 1;
  const pageSize = q.pageSize ?? fromCursor?.pageSize ?? defaultPageSize;
  const paged = q.page !== undefined || q.pageSize !== undefined || q.cursor !== undefined;
  return { paged, page, pageSize, offset: (page - 1) * pageSize };
}

/** `{data, page, nextCursor}` of a list paged by number (docs/openapi.md, "Lists"). */
export function offsetPageAnswer<T>(
  data: T[],
  total: number,
  p: OffsetPage,
): { data: T[]; page: PageInfoDto; nextCursor: string | null } {
  const info = pageInfo(total, p.page, p.pageSize);
  return { data, page: info, nextCursor: p.page < info.totalPages ? encodePageCursor(p.page + 1, p.pageSize) : null };
}
