import { pageInfo } from './page-info';

describe('pageInfo', () => {
  it('gives an empty log one empty page', () => {
    expect(pageInfo(0, 1, 20)).toEqual({
      totalItems: 0,
      currentPage: 1,
      pageSize: 20,
      totalPages: 1,
      startPage: 1,
      endPage: 1,
      startIndex: 0,
      endIndex: -1,
      pages: [1],
    });
  });

  it('lists every page when there are at most 10', () => {
    expect(pageInfo(95, 4, 10)).toMatchObject({ totalPages: 10, startPage: 1, endPage: 10, startIndex: 30, endIndex: 39 });
  });

  it.each([
    [1, 1, 10],
    [5, 1, 10],
    [6, 1, 10],
    [7, 2, 11],
    [16, 11, 20],
    [17, 11, 20],
    [20, 11, 20],
  ])('windows 10 of 20 pages around page %i', (current, start, end) => {
    const p = pageInfo(200, current, 10);
    expect([p.startPage, p.endPage]).toEqual([start, end]);
    expect(p.pages).toEqual(Array.from({ length: end - start + 1 }, (_, i) => start + i));
  });

  it('ends the last page at the last item and keeps a page past the end empty', () => {
    expect(pageInfo(25, 3, 10)).toMatchObject({ startIndex: 20, endIndex: 24 });
    expect(pageInfo(25, 5, 10)).toMatchObject({ currentPage: 5, startIndex: 40, endIndex: 24, pages: [1, 2, 3] });
  });
});
