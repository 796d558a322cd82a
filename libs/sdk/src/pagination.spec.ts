import { listItems, toArray, type ListPage } from './pagination';

describe('listItems', () => {
  it('follows nextCursor page after page, fetching the next page only when reached', async () => {
    const asked: (string | undefined)[] = [];
    const pages: Record<string, ListPage<string>> = {
      first: { data: ['a', 'b'], nextCursor: 'c2' },
      c2: { data: ['c'], nextCursor: 'c3' },
      c3: { data: [], nextCursor: null },
    };
    const items = listItems<string>(async (cursor) => (asked.push(cursor), pages[cursor ?? 'first']));
    const first = await items.next();
    expect(first.value).toBe('a');
    expect(asked).toEqual([undefined]);
    expect(await toArray(items)).toEqual(['b', 'c']);
    expect(asked).toEqual([undefined, 'c2', 'c3']);
  });

  it('stops fetching when the loop breaks', async () => {
    let calls = 0;
    const items = listItems<number>(async (cursor) => {
      calls++;
      const n = Number(cursor ?? 0);
      return { data: [n], nextCursor: String(n + 1) };
    });
    for await (const n of items) if (n === 2) break;
    expect(calls).toBe(3);
  });

  it('ends a feed when it has no more, though it keeps a cursor to resume from', async () => {
    const answers: ListPage<number>[] = [
      { data: [1], nextCursor: 'a', hasMore: true },
      { data: [2], nextCursor: 'b', hasMore: false },
    ];
    let i = 0;
    expect(await toArray(listItems(async () => answers[i++]))).toEqual([1, 2]);
    expect(i).toBe(2);
  });

  it('takes a plain array (an unpaged list of the contract) as the whole list', async () => {
    let calls = 0;
    expect(await toArray(listItems(async () => (calls++, ['x', 'y'])))).toEqual(['x', 'y']);
    expect(calls).toBe(1);
  });

  it('refuses a list that answers the cursor it was given (it would never end)', async () => {
    await expect(toArray(listItems(async () => ({ data: [1], nextCursor: 'same' })))).rejects.toThrow(/stopping/);
  });
});
