import { LOGIN_POLICY, loginKey, pairDelaySeconds } from './login-throttle.service';

describe('loginKey', () => {
  it('is one fixed-size key per tenant, client and username (case and padding ignored)', () => {
    const key = loginKey('t1', 'c1', 'User@Example.test');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(loginKey('t1', 'c1', ' user@example.test ')).toBe(key);
    expect(loginKey('t2', 'c1', 'user@example.test')).not.toBe(key);
    expect(loginKey('t1', 'c2', 'user@example.test')).not.toBe(key);
    expect(loginKey('t1', 'c1', 'other@example.test')).not.toBe(key);
    expect(loginKey('t1', 'c1', 'x'.repeat(5000))).toHaveLength(64);
  });

  it('cannot be forged by moving separators between parts', () => {
    expect(loginKey('a', 'b\nc', 'd')).not.toBe(loginKey('a\nb', 'c', 'd'));
  });
});

describe('pairDelaySeconds', () => {
  it('is free up to the budget, then 1 s doubling at each attempt, capped at 15 minutes', () => {
    const delays = Array.from({ length: 16 }, (_, i) => pairDelaySeconds(i + 1, 5));
    expect(delays).toEqual([0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
    expect(pairDelaySeconds(1_000_000, 5)).toBe(LOGIN_POLICY.maxDelaySeconds);
  });
});
