import { isIdentifier } from './identifiers';

describe('identifiers', () => {
  it('accepts URL-safe ids of 1 to 128 characters only', () => {
    expect(isIdentifier('tenant-a.b_c~1')).toBe(true);
    expect(isIdentifier('x'.repeat(128))).toBe(true);
    expect(isIdentifier('x'.repeat(129))).toBe(false);
    expect(isIdentifier('')).toBe(false);
    expect(isIdentifier('a b')).toBe(false);
    expect(isIdentifier('a\0b')).toBe(false);
    expect(isIdentifier('a/b')).toBe(false);
  });
});
