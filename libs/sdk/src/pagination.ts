/**
 * One answer of a list (docs/openapi.md, "Lists"): the items in `data` and, at the top level,
 * the `nextCursor` that continues the list (null on its last page). A feed, whose end moves
 * on, always keeps a cursor to resume from and says `hasMore: false` when it is caught up.
 */
export interface ListPage<T> {
  data: T[];
  nextCursor?: string | null;
  hasMore?: boolean;
}

/**
 * Every item of a list, page after page, as a `for await` iterator: the one path every list
 * of the SDK takes. `fetchPage` is called with `undefined` first, then with each answer's
 * `nextCursor` (sent back as the `cursor` query parameter) until it is null, or a feed has no
 * more. A plain array (the contract's unpaged lists) is the whole list. Pages are fetched
 * lazily: breaking out of the loop fetches no further page.
 */
export async function* listItems<T>(
  fetchPage: (cursor: string | undefined) => Promise<ListPage<T> | T[]>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const answer = await fetchPage(cursor);
    if (Array.isArray(answer)) {
      yield* answer;
      return;
    }
    yield* answer.data;
    if (answer.nextCursor === null || answer.nextCursor === undefined || answer.hasMore === false) return;
    if (answer.nextCursor === cursor) throw new Error(`the list answered the cursor it was asked for (${cursor}): stopping`);
    cursor = answer.nextCursor;
  }
}

/** Collects an async iterator into an array (small lists, tests). */
export async function toArray<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
