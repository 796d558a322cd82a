import { contentDisposition, etagMatches, parseRange, rangeIfUnchanged } from './http-range';

describe('rangeIfUnchanged', () => {
  it('honours the range without If-Range or with the current tag, and sends the whole body for another tag', () => {
    expect(rangeIfUnchanged('bytes=10-19', undefined, '"a"', 100)).toEqual({ start: 10, end: 19 });
    expect(rangeIfUnchanged('bytes=10-19', '"a"', '"a"', 100)).toEqual({ start: 10, end: 19 });
    expect(rangeIfUnchanged('bytes=10-19', '"b"', '"a"', 100)).toBeUndefined();
    expect(rangeIfUnchanged('bytes=10-19', 'W/"a"', '"a"', 100)).toBeUndefined();
    expect(rangeIfUnchanged('bytes=100-', '"a"', '"a"', 100)).toBe('unsatisfiable');
  });
});

describe('parseRange', () => {
  it.each([
    ['bytes=0-9', { start: 0, end: 9 }],
    ['bytes=990-', { start: 990, end: 999 }],
    ['bytes=990-5000', { start: 990, end: 999 }],
    ['bytes=-10', { start: 990, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
  ])('%s of 1000 bytes', (header, range) => {
    expect(parseRange(header, 1000)).toEqual(range);
  });

  it('is unsatisfiable past the end or for an empty suffix', () => {
    expect(parseRange('bytes=1000-', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 1000)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
  });

  it('ignores several ranges, other units and malformed values (whole body)', () => {
    for (const h of [undefined, 'bytes=0-1,5-6', 'items=0-1', 'bytes=5-2', 'bytes=-', 'bytes=a-b']) {
      expect(parseRange(h, 1000)).toBeUndefined();
    }
  });
});

describe('etagMatches', () => {
  it('compares weakly and accepts * and lists', () => {
    expect(etagMatches('"abc"', '"abc"')).toBe(true);
    expect(etagMatches('W/"abc"', '"abc"')).toBe(true);
    expect(etagMatches('"x", "abc"', '"abc"')).toBe(true);
    expect(etagMatches('*', '"abc"')).toBe(true);
    expect(etagMatches('"abcd"', '"abc"')).toBe(false);
    expect(etagMatches(undefined, '"abc"')).toBe(false);
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII fallback and the exact name as filename*', () => {
    expect(contentDisposition('plain.pdf')).toBe(`attachment; filename="plain.pdf"; filename*=UTF-8''plain.pdf`);
    expect(contentDisposition('a"b\\c;d\r.txt')).toBe(
      `attachment; filename="a_b_c;d_.txt"; filename*=UTF-8''a%22b%5Cc%3Bd%0D.txt`,
    );
    expect(contentDisposition("l'été (1).jpg")).toBe(
      `attachment; filename="l'_t_ (1).jpg"; filename*=UTF-8''l%27%C3%A9t%C3%A9%20%281%29.jpg`,
    );
  });
});
