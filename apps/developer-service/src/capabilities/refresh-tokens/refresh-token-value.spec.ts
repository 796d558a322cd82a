import { hashRefreshToken, hasRefreshTokenShape, newRefreshToken } from './refresh-token-value';

describe('refresh token values', () => {
  it('are 256 random bits in base64url, a new one every time', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => newRefreshToken()));
    expect(tokens.size).toBe(50);
    for (const t of tokens) {
      expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(t, 'base64url')).toHaveLength(32);
      expect(hasRefreshTokenShape(t)).toBe(true);
    }
  });

  it('are stored as their SHA-256 only', () => {
    const t = newRefreshToken();
    expect(hashRefreshToken(t)).toHaveLength(32);
    expect(hashRefreshToken(t).equals(hashRefreshToken(t))).toBe(true);
    expect(hashRefreshToken(t).toString('latin1')).not.toContain(t);
  });

  it('tells malformed values apart without a lookup', () => {
    for (const v of ['', 'x', `${newRefreshToken()}=`, 'a'.repeat(44), `${'a'.repeat(42)}+`, `${'a'.repeat(42)}\n`]) {
      expect(hasRefreshTokenShape(v)).toBe(false);
    }
  });
});
