import { ifMatchHolds, ifNoneMatchMatches, IfMatchCondition, parseETagList, versionETag } from './conditional-requests';

describe('conditional request headers (RFC 9110)', () => {
  const current = versionETag('3f0c8a8e-5d1e-4b7a-9a53-0d6c2f8f3a11', 4);

  it('formats a strong ETag of id and version', () => {
    expect(current).toBe('"3f0c8a8e-5d1e-4b7a-9a53-0d6c2f8f3a11.4"');
  });

  it('parses *, lists with weak members and empty elements, and refuses what is not an entity tag', () => {
    expect(parseETagList(undefined)).toBeUndefined();
    expect(parseETagList(' * ')).toBe('*');
    expect(parseETagList('"a", W/"b",, "c"')).toEqual([
      { weak: false, tag: '"a"' },
      { weak: true, tag: '"b"' },
      { weak: false, tag: '"c"' },
    ]);
    for (const bad of ['a', '"a" "b"', '"a', '*, "a"', 'w/"a"', '', ',']) expect(parseETagList(bad)).toBe('invalid');
  });

  it('If-Match: strong comparison, * for an existing resource, nothing holds for a missing one', () => {
    expect(ifMatchHolds(undefined, current)).toBe(true);
    expect(ifMatchHolds('*', current)).toBe(true);
    expect(ifMatchHolds(`"x", ${current}`, current)).toBe(true);
    expect(ifMatchHolds(`W/${current}`, current)).toBe(false);
    expect(ifMatchHolds('"x"', current)).toBe(false);
    expect(ifMatchHolds('garbage', current)).toBe(false);
    expect(ifMatchHolds('*', null)).toBe(false);
    expect(ifMatchHolds(undefined, null)).toBe(true);
  });

  it('If-None-Match: weak comparison and *; an unparsable value matches nothing', () => {
    expect(ifNoneMatchMatches(undefined, current)).toBe(false);
    expect(ifNoneMatchMatches('*', current)).toBe(true);
    expect(ifNoneMatchMatches(`W/${current}`, current)).toBe(true);
    expect(ifNoneMatchMatches(`"x",${current}`, current)).toBe(true);
    expect(ifNoneMatchMatches('"x"', current)).toBe(false);
    expect(ifNoneMatchMatches('garbage', current)).toBe(false);
  });

  it('IfMatchCondition.assert raises 412 precondition_failed for a stale tag', () => {
    expect(() => new IfMatchCondition('"x"').assert(current)).toThrow(
      expect.objectContaining({ code: 'precondition_failed', status: 412 }),
    );
  });
});
