import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** Fixed one-minute window of requests per client IP address, in memory. */
export class ClientRateLimiter {
  private readonly limiter?: RateLimiterMemory;

  /** `perMinute` 0 turns the limit off. */
  constructor(perMinute: number) {
    if (perMinute > 0) this.limiter = new RateLimiterMemory({ points: perMinute, duration: 60 });
  }

  /** Counts one request; resolves to undefined when allowed, else the seconds to wait. */
  async retryAfter(clientIp: string): Promise<number | undefined> {
    if (!this.limiter) return undefined;
    try {
      await this.limiter.consume(clientIp);
      return undefined;
    } catch (err) {
      if (err instanceof RateLimiterRes) return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw err;
    }
  }
}
