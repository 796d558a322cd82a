import { hashMfaCode, mfaCodeMatches, newMfaCode } from './mfa-code';

describe('MFA codes', () => {
  it('are six digits', () => {
    for (let i = 0; i < 200; i++) expect(newMfaCode()).toMatch(/^[0-9]{6}$/);
  });

  it('are not all the same', () => {
    const codes = new Set(Array.from({ length: 50 }, newMfaCode));
    expect(codes.size).toBeGreaterThan(40);
  });

  it('are stored salted and hashed, and only the code matches', () => {
    const stored = hashMfaCode('012345');
    expect(stored).not.toContain('012345');
    expect(hashMfaCode('012345')).not.toEqual(stored);
    expect(mfaCodeMatches('012345', stored)).toBe(true);
    expect(mfaCodeMatches('012346', stored)).toBe(false);
    expect(mfaCodeMatches('012345', 'garbage')).toBe(false);
  });
});
