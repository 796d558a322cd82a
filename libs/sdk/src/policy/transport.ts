import { randomUUID } from 'node:crypto';
import { VaultNetworkError } from '../errors.js';
import type { TokenProvider } from '../auth/token-provider.js';
import { sleep, type FetchLike } from './net.js';
import { DEFAULT_RETRY, isRetryableStatus, mayRetry, nextDelay, parseRateLimit, type RetryOptions } from './retry-policy.js';

/** What the transport reports before it waits for another attempt. */
export interface RetryEvent {
  method: string;
  url: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  /** The answer's status, or undefined when the request got no answer. */
  status?: number;
  error?: unknown;
  /** The wait before the next attempt. */
  delayMs: number;
  /** true when the server said how long (Retry-After, RateLimit), false for backoff. */
  told: boolean;
  idempotencyKey?: string;
}

export interface TransportOptions {
  fetch: FetchLike;
  tokens?: TokenProvider;
  retry?: Partial<RetryOptions>;
  /** Time allowed until an attempt's answer headers arrive, in ms (default 30 000). */
  timeoutMs?: number;
  userAgent?: string;
  onRetry?: (event: RetryEvent) => void;
  /** Injected in unit tests. */
  random?: () => number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** One logical call, sent once or several times. */
export interface SendInit {
  method: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: Uint8Array | string;
  signal?: AbortSignal;
  /** A POST's key: the caller's own, or false for none; by default one is made for the call. */
  idempotencyKey?: string | false;
  /** false: no Authorization header (public routes). */
  auth?: boolean;
  /** false: a single attempt. */
  retry?: boolean;
}

/** POSTs that create nothing a repeat could duplicate or that the platform does not key: sent without a made-up key. */
const UNKEYED_POSTS = [/\/auth$/, /\/oauth\/token$/, /\/rotate-secret$/];

class AttemptTimeout extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * The SDK's policy layer, under every call: bearer token (refreshed once on a 401), an
 * Idempotency-Key per logical POST kept across its retries, retries of what may be repeated
 * with full-jitter backoff or the wait the server names (Retry-After, RateLimit), a wait before
 * any request while the rate-limit budget is spent, per-attempt timeouts and the caller's AbortSignal.
 */
export class Transport {
  readonly retry: RetryOptions;
  private notBefore = 0;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly wait: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(readonly options: TransportOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.wait = options.sleep ?? sleep;
  }

  /** The openapi-fetch `fetch`: its Request sent through {@link send}. */
  readonly fetch = async (request: Request): Promise<Response> => {
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    return this.send(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
  };

  async send(url: string, init: SendInit): Promise<Response> {
    const method = init.method.toUpperCase();
    const headers = new Headers(init.headers);
    if (this.options.userAgent && !headers.has('user-agent')) headers.set('user-agent', this.options.userAgent);
    this.applyIdempotencyKey(method, url, headers, init.idempotencyKey);
    const retryable = init.retry !== false && mayRetry(method, headers);
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      await this.waitForBudget(init.signal);
      const token = init.auth === false ? undefined : await this.options.tokens?.getToken(init.signal);
      if (token) headers.set('authorization', `Bearer ${token}`);
      let response: Response | undefined;
      let error: unknown;
      try {
        response = await this.attempt(url, method, headers, init.body, init.signal);
      } catch (e) {
        if (init.signal?.aborted) throw init.signal.reason;
        error = e;
      }
      if (response) {
        this.observeBudget(response);
        // a refreshed token keeps its sign-in's time: a step-up challenge (RFC 9470) needs a new sign-in
        if (response.status === 401 && token && this.options.tokens?.invalidate && !refreshed && !asksForSignIn(response)) {
          refreshed = true;
          await this.options.tokens.invalidate(token);
          await response.body?.cancel();
          attempt--;
          continue;
        }
        if (!retryable || attempt >= this.retry.maxAttempts || !isRetryableStatus(response.status, await problemCode(response))) {
          return response;
        }
      } else if (!retryable || attempt >= this.retry.maxAttempts) {
        throw new VaultNetworkError(`${method} ${url}: no answer after ${attempt} attempt(s): ${describe(error)}`, {
          cause: error,
        });
      }
      const next = nextDelay(attempt - 1, response, this.retry, this.random, this.now());
      if (response && next.giveUp) return response;
      await response?.body?.cancel();
      this.options.onRetry?.({
        method,
        url,
        attempt,
        status: response?.status,
        error,
        delayMs: next.delayMs,
        told: next.told,
        idempotencyKey: headers.get('idempotency-key') ?? undefined,
      });
      await this.wait(next.delayMs, init.signal);
    }
  }

  private applyIdempotencyKey(method: string, url: string, headers: Headers, key: string | false | undefined): void {
    if (method !== 'POST' || headers.has('idempotency-key') || key === false) return;
    if (key) headers.set('idempotency-key', key);
    else if (!UNKEYED_POSTS.some((p) => p.test(new URL(url).pathname))) headers.set('idempotency-key', randomUUID());
  }

  private async attempt(
    url: string,
    method: string,
    headers: Headers,
    body: Uint8Array | string | undefined,
    signal?: AbortSignal,
  ) {
    const controller = new AbortController();
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => controller.abort(new AttemptTimeout(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.options.fetch(url, { method, headers, body: body as RequestInit['body'], signal: controller.signal });
    } catch (e) {
      throw controller.signal.aborted && controller.signal.reason instanceof AttemptTimeout ? controller.signal.reason : e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A spent budget (`RateLimit` with r=0) holds every request until its reset. */
  private observeBudget(response: Response): void {
    const limit = parseRateLimit(response.headers.get('ratelimit'));
    if (limit && limit.remaining === 0) {
      const resetMs = Math.min(limit.resetSeconds * 1000, this.retry.maxRetryAfterMs);
      this.notBefore = Math.max(this.notBefore, this.now() + resetMs);
    }
  }

  private async waitForBudget(signal?: AbortSignal): Promise<void> {
    const ms = this.notBefore - this.now();
    if (ms > 0) await this.wait(ms, signal);
  }
}

async function problemCode(response: Response): Promise<string | undefined> {
  if (response.status !== 409) return undefined;
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { code?: string } | undefined;
  return body?.code;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? error.message;
  }
  return String(error);
}

/** A 401 whose challenge asks for a more recent sign-in (RFC 9470), which no refresh gives. */
function asksForSignIn(response: Response): boolean {
  // the parameter quoted or not (RFC 9110 §11.2), in any challenge of the header
  return /(?:^|[\s,])error\s*=\s*"?insufficient_user_authentication"?\s*(?:,|$)/i.test(
    response.headers.get('www-authenticate') ?? '',
  );
}
