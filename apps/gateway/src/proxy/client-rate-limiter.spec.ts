import { ClientRateLimiter } from './client-rate-limiter';

describe('ClientRateLimiter', () => {
  it('allows the configured number of requests per minute per address, then asks to wait', async () => {
    const limiter = new ClientRateLimiter(2);
    expect(await limiter.retryAfter('10.0.0.1')).toBeUndefined();
    expect(await limiter.retryAfter('10.0.0.1')).toBeUndefined();
    const wait = await limiter.retryAfter('10.0.0.1');
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await limiter.retryAfter('10.0.0.2')).toBeUndefined();
  });

  it('never limits when set to 0', async () => {
    const limiter = new ClientRateLimiter(0);
    for (let i = 0; i < 100; i++) expect(await limiter.retryAfter('10.0.0.1')).toBeUndefined();
  });
});
