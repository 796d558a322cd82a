import {
  DEFAULT_RETRY,
  fullJitterDelay,
  isRetryableStatus,
  mayRetry,
  nextDelay,
  parseRateLimit,
  parseRetryAfter,
} from './retry-policy';

describe('retry policy', () => {
  it('reads Retry-After as seconds or as an HTTP date, and ignores garbage', () => {
    expect(parseRetryAfter('30', 0)).toBe(30_000);
    expect(parseRetryAfter(new Date(5000).toUTCString(), 1000)).toBe(4000);
    expect(parseRetryAfter(new Date(0).toUTCString(), 1000)).toBe(0);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(null, 0)).toBeUndefined();
  });

  it('reads the RateLimit field of the gateway (draft 11, structured)', () => {
    expect(parseRateLimit('"caller";r=597;t=41')).toEqual({ policy: 'caller', remaining: 597, resetSeconds: 41 });
    expect(parseRateLimit('"tenant";r=0;t=7, "caller";r=3;t=7')).toEqual({ policy: 'tenant', remaining: 0, resetSeconds: 7 });
    expect(parseRateLimit('limit=10')).toBeUndefined();
  });

  it('retries idempotent methods, and POST only with a key', () => {
    expect(mayRetry('get', new Headers())).toBe(true);
    expect(mayRetry('DELETE', new Headers())).toBe(true);
    expect(mayRetry('POST', new Headers())).toBe(false);
    expect(mayRetry('POST', new Headers({ 'Idempotency-Key': 'k' }))).toBe(true);
    expect(mayRetry('PATCH', new Headers({ 'Idempotency-Key': 'k' }))).toBe(false);
  });

  it('retries the statuses that say "later", not the ones that say "no"', () => {
    for (const s of [408, 425, 429, 500, 502, 503, 504]) expect(isRetryableStatus(s, undefined)).toBe(true);
    for (const s of [400, 401, 403, 404, 412, 413, 422, 501]) expect(isRetryableStatus(s, undefined)).toBe(false);
    expect(isRetryableStatus(409, 'idempotency_key_in_flight')).toBe(true);
    expect(isRetryableStatus(409, 'conflict')).toBe(false);
  });

  it('draws full jitter below a ceiling that doubles up to the cap', () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 10].map((r) => fullJitterDelay(r, options, () => 0.9999))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(fullJitterDelay(3, options, () => 0)).toBe(0);
  });

  it('prefers the server’s word, and gives up beyond maxRetryAfterMs', () => {
    const headers = (h: Record<string, string>) => ({ headers: new Headers(h) });
    expect(nextDelay(0, headers({ 'retry-after': '2', ratelimit: '"c";r=0;t=9' }), DEFAULT_RETRY, () => 0.5, 0)).toEqual({
      delayMs: 2000,
      giveUp: false,
      told: true,
    });
    expect(nextDelay(0, headers({ ratelimit: '"c";r=0;t=9' }), DEFAULT_RETRY, () => 0.5, 0)).toEqual({
      delayMs: 9000,
      giveUp: false,
      told: true,
    });
    expect(nextDelay(0, headers({ ratelimit: '"c";r=5;t=9' }), DEFAULT_RETRY, () => 0.5, 0)).toEqual({
      delayMs: 100,
      giveUp: false,
      told: false,
    });
    expect(nextDelay(0, headers({ 'retry-after': '61' }), DEFAULT_RETRY, () => 0.5, 0).giveUp).toBe(true);
  });
});
