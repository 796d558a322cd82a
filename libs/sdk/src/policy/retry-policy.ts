/** How the SDK retries (every field optional in {@link VaultClientOptions.retry}). */
export interface RetryOptions {
  /** Attempts in all, the first included (default 4). 1 turns retries off. */
  maxAttempts: number;
  /** Base of the exponential backoff, in ms (default 200). */
  baseDelayMs: number;
  /** Cap of one backoff delay, in ms (default 10 000). */
  maxDelayMs: number;
  /**
   * The longest `Retry-After` (or `RateLimit` reset) the SDK waits for, in ms (default 60 000).
   * An answer asking for longer is returned to the caller (a {@link RateLimitedError}).
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
};

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const RETRYABLE_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

/**
 * Whether a request may be sent again at all: idempotent methods always; a POST only with an
 * `Idempotency-Key` (the platform then answers a repeat with the first answer); PATCH never.
 */
export function mayRetry(method: string, headers: Headers): boolean {
  const m = method.toUpperCase();
  if (IDEMPOTENT_METHODS.has(m)) return true;
  return m === 'POST' && headers.has('idempotency-key');
}

/** Whether an answer asks for another attempt (409 only for `idempotency_key_in_flight`). */
export function isRetryableStatus(status: number, problemCode: string | undefined): boolean {
  if (status === 409) return problemCode === 'idempotency_key_in_flight';
  return RETRYABLE_STATUSES.has(status);
}

/** `Retry-After` in ms: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or malformed. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The `RateLimit` field (draft-ietf-httpapi-ratelimit-headers): the closest policy's remaining `r` and reset `t` (seconds). */
export interface RateLimitState {
  policy: string;
  remaining: number;
  resetSeconds: number;
}

/** Parses `RateLimit: "caller";r=0;t=41` (the draft's structured form); undefined when absent or malformed. */
export function parseRateLimit(value: string | null): RateLimitState | undefined {
  if (!value) return undefined;
  const first = value.split(',')[0]?.trim() ?? '';
  const [name, ...params] = first.split(';').map((p) => p.trim());
  const fields: Record<string, number> = {};
  for (const p of params) {
    const [k, v] = p.split('=');
    if (k && v !== undefined && /^\d+$/.test(v)) fields[k] = Number(v);
  }
  if (fields['r'] === undefined || fields['t'] === undefined) return undefined;
  return { policy: (name ?? '').replace(/^"|"$/g, ''), remaining: fields['r'], resetSeconds: fields['t'] };
}

/** Full jitter (AWS architecture blog, "Exponential Backoff And Jitter"): uniform in [0, min(cap, base·2^retry)). */
export function fullJitterDelay(retry: number, options: RetryOptions, random: () => number): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * How long to wait before the next attempt after `response` (undefined after a network error):
 * the server's `Retry-After` when it gives one, else the `RateLimit` reset when the budget is
 * spent, else full jitter. `giveUp` when the server asks for more than `maxRetryAfterMs`.
 */
export function nextDelay(
  retry: number,
  response: { headers: Headers } | undefined,
  options: RetryOptions,
  random: () => number,
  now: number,
): { delayMs: number; giveUp: boolean; told: boolean } {
  const retryAfter = response ? parseRetryAfter(response.headers.get('retry-after'), now) : undefined;
  const limit = response ? parseRateLimit(response.headers.get('ratelimit')) : undefined;
  const told = retryAfter ?? (limit && limit.remaining === 0 ? limit.resetSeconds * 1000 : undefined);
  if (told !== undefined) return { delayMs: told, giveUp: told > options.maxRetryAfterMs, told: true };
  return { delayMs: fullJitterDelay(retry, options, random), giveUp: false, told: false };
}
