import { nextPageNumber, paginate, toArray } from './pagination';

describe('paginate', () => {
  it('yields every item of every page, fetching the next page only when reached', async () => {
    const fetched: (number | undefined)[] = [];
    const pages = [['a', 'b'], ['c'], []];
    const items = paginate<string, number>(async (next) => {
      fetched.push(next);
      const index = next ?? 0;
      return { items: pages[index], next: index + 1 < pages.length ? index + 1 : undefined };
    });
    const first = await items.next();
    expect(first.value).toBe('a');
    expect(fetched).toEqual([undefined]);
    expect(await toArray(items)).toEqual(['b', 'c']);
    expect(fetched).toEqual([undefined, 1, 2]);
  });

  it('stops fetching when the loop breaks', async () => {
    let calls = 0;
    const items = paginate<number, number>(async (n = 0) => (calls++, { items: [n], next: n + 1 }));
    for await (const n of items) if (n === 2) break;
    expect(calls).toBe(3);
  });

  it('reads the next page number from the page object', () => {
    expect(nextPageNumber({ currentPage: 1, totalPages: 3 })).toBe(2);
    expect(nextPageNumber({ currentPage: 3, totalPages: 3 })).toBeUndefined();
    expect(nextPageNumber({ currentPage: 1, totalPages: 1 })).toBeUndefined();
  });
});
