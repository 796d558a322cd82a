/** One page of a list: its items and where the next page starts (undefined on the last). */
export interface Page<T, N = string | number> {
  items: T[];
  next: N | undefined;
}

/**
 * Every item of a paged list, page after page, as a `for await` iterator. Pages are fetched
 * lazily: breaking out of the loop fetches no further page.
 */
export async function* paginate<T, N = string | number>(
  fetchPage: (next: N | undefined) => Promise<Page<T, N>>,
): AsyncGenerator<T, void, undefined> {
  let next: N | undefined;
  do {
    const page = await fetchPage(next);
    for (const item of page.items) yield item;
    next = page.next;
  } while (next !== undefined);
}

/** The platform's page object (`{totalItems, currentPage, totalPages, …}`): the number of the next page, if any. */
export function nextPageNumber(page: { currentPage: number; totalPages: number }): number | undefined {
  return page.currentPage < page.totalPages ? page.currentPage + 1 : undefined;
}

/** Collects an async iterator into an array (small lists, tests). */
export async function toArray<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
