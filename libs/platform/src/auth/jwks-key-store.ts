import { Logger } from '@nestjs/common';
import { KeyObject } from 'node:crypto';
import { importJWK, type CryptoKey, type JWK } from 'jose';
import { TOKEN_SIGNING_ALGORITHM } from '@vault/contracts';
import { redactUrl, redactUrlIn } from '../config/url-credentials';
import { jwksRefreshFailures, watchJwksCache } from '../observability/jwks-metrics';

/** Background refresh of the key set (the JWKS is served with `max-age=300`). */
export const JWKS_REFRESH_INTERVAL_MS = 5 * 60 * 1000;
/** Least time between two fetches started for unknown key ids (and the retry delay after a failure). */
export const JWKS_REFRESH_COOLDOWN_MS = 30 * 1000;
/** A fetch that takes longer is abandoned (and counts as failed). */
export const JWKS_FETCH_TIMEOUT_MS = 5 * 1000;
/** Retry delay while no key set has been loaded yet (the key server may still be starting). */
export const JWKS_INITIAL_RETRY_MS = 1000;
/** Largest JWKS document accepted. */
const MAX_JWKS_BYTES = 256 * 1024;
const MAX_KID_LENGTH = 256;

export interface JwksKeyStoreOptions {
  refreshIntervalMs: number;
  cooldownMs: number;
  timeoutMs: number;
  initialRetryMs: number;
}

const DEFAULT_OPTIONS: JwksKeyStoreOptions = {
  refreshIntervalMs: JWKS_REFRESH_INTERVAL_MS,
  cooldownMs: JWKS_REFRESH_COOLDOWN_MS,
  timeoutMs: JWKS_FETCH_TIMEOUT_MS,
  initialRetryMs: JWKS_INITIAL_RETRY_MS,
};

interface StoredKey {
  /** The public members the key was imported from, to skip re-imports of an unchanged key. */
  source: string;
  key: CryptoKey;
  /** The same key as a node KeyObject (what jsonwebtoken, under passport-jwt, verifies with), made once. */
  keyObject: KeyObject;
}

/**
 * The token signing keys of a JWKS, imported once per `kid` and kept in memory.
 *
 * - Refreshed in the background every `refreshIntervalMs`, and on demand when a
 *   token names a `kid` the set lacks, but never two fetches at once and never
 *   sooner than `cooldownMs` after the previous one started: however many
 *   unknown key ids arrive, they cost at most one fetch per cooldown. An unknown
 *   id seen during the cooldown schedules one refresh at its end (so a rotated
 *   key is found by the next refresh) and is refused meanwhile.
 * - Known key ids are answered from memory and never wait on a fetch.
 * - A refresh that fails (network, status, unreadable document, no usable key)
 *   keeps the last good set; a successful one replaces it (keys no longer
 *   published stop verifying).
 */
export class JwksKeyStore {
  private readonly logger = new Logger('Jwks');
  private readonly options: JwksKeyStoreOptions;
  private keys = new Map<string, StoredKey>();
  private inFlight?: Promise<void>;
  private lastStarted = Number.NEGATIVE_INFINITY;
  private loaded = false;
  private timer?: NodeJS.Timeout;
  private timerDue = Number.POSITIVE_INFINITY;
  private stopped = false;
  private abort?: AbortController;
  private lastRefreshAt?: number;
  private unwatch?: () => void;

  constructor(
    private readonly url: string,
    options: Partial<JwksKeyStoreOptions> = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
  }

  /** Starts the first fetch (not awaited: tokens arriving meanwhile wait on it) and the timer. */
  start(): void {
    this.stopped = false;
    const started = Date.now();
    this.unwatch ??= watchJwksCache(() => ({ keys: this.keys.size, lastRefreshAt: this.lastRefreshAt ?? started }));
    void this.refresh();
  }

  stop(): void {
    this.stopped = true;
    this.unwatch?.();
    this.unwatch = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.abort?.abort();
  }

  /** Key ids of the current set. */
  kids(): string[] {
    return [...this.keys.keys()];
  }

  /** The key held for `kid` now, without fetching. */
  current(kid: string): CryptoKey | undefined {
    return this.keys.get(kid)?.key;
  }

  /** As current(), the KeyObject. */
  currentKeyObject(kid: string): KeyObject | undefined {
    return this.keys.get(kid)?.keyObject;
  }

  /**
   * The key for `kid`: from memory when known; otherwise after the refresh in
   * flight or one started now (when the cooldown allows), else undefined.
   */
  async resolve(kid: unknown): Promise<CryptoKey | undefined> {
    return (await this.resolveStored(kid))?.key;
  }

  /** As resolve(), the key as a node KeyObject. */
  async resolveKeyObject(kid: unknown): Promise<KeyObject | undefined> {
    return (await this.resolveStored(kid))?.keyObject;
  }

  private async resolveStored(kid: unknown): Promise<StoredKey | undefined> {
    if (typeof kid !== 'string' || kid.length === 0 || kid.length > MAX_KID_LENGTH) return undefined;
    const known = this.keys.get(kid);
    if (known) return known;
    const now = Date.now();
    if (this.inFlight) {
      await this.inFlight;
    } else if (now - this.lastStarted >= this.options.cooldownMs) {
      await this.refresh();
    } else {
      this.schedule(this.lastStarted + this.options.cooldownMs - now);
    }
    return this.keys.get(kid);
  }

  /** Fetches the set unless a fetch is already running (then joins it). Never rejects. */
  private refresh(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    this.lastStarted = Date.now();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
    const run = this.load().then(
      () => {
        this.loaded = true;
        this.lastRefreshAt = Date.now();
        return this.options.refreshIntervalMs;
      },
      (err: unknown) => {
        jwksRefreshFailures.inc();
        this.logger.warn(
          `JWKS refresh from ${redactUrl(this.url)} failed, keeping ${this.keys.size} key(s): ${redactUrlIn(String(err), this.url)}`,
        );
        return this.loaded ? this.options.cooldownMs : this.options.initialRetryMs;
      },
    );
    this.inFlight = run.then((next) => {
      this.inFlight = undefined;
      this.schedule(next);
    });
    return this.inFlight;
  }

  /** (Re)arms the background timer when `delayMs` from now is sooner than the one set. */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const due = Date.now() + delayMs;
    if (this.timer && due >= this.timerDue) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerDue = Number.POSITIVE_INFINITY;
      void this.refresh();
    }, delayMs).unref();
  }

  private async load(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    const timeout = setTimeout(() => abort.abort(), this.options.timeoutMs);
    let text: string;
    try {
      const res = await fetch(this.url, { signal: abort.signal, headers: { accept: 'application/json' } });
      if (!res.ok) throw new Error(`status ${res.status}`);
      text = await res.text();
    } finally {
      clearTimeout(timeout);
    }
    if (text.length > MAX_JWKS_BYTES) throw new Error('document too large');
    const doc = JSON.parse(text) as { keys?: unknown };
    if (!Array.isArray(doc.keys)) throw new Error('no "keys" array');
    const next = new Map<string, StoredKey>();
    for (const jwk of doc.keys as JWK[]) {
      const imported = await this.importKey(jwk);
      if (imported) next.set(imported[0], imported[1]);
    }
    if (next.size === 0) throw new Error('no usable ES256 signing key');
    this.keys = next;
  }

  /** Imports the public part of an ES256 signing key, reusing the one held for an unchanged kid. */
  private async importKey(jwk: JWK): Promise<[string, StoredKey] | undefined> {
    const { kid, kty, crv, x, y, alg, use } = jwk ?? {};
    if (typeof kid !== 'string' || kid.length === 0 || kid.length > MAX_KID_LENGTH) return undefined;
    if (kty !== 'EC' || crv !== 'P-256' || typeof x !== 'string' || typeof y !== 'string') return undefined;
    if ((alg !== undefined && alg !== TOKEN_SIGNING_ALGORITHM) || (use !== undefined && use !== 'sig')) {
      return undefined;
    }
    const source = `${x}.${y}`;
    const held = this.keys.get(kid);
    if (held?.source === source) return [kid, held];
    try {
      const key = (await importJWK({ kty, crv, x, y }, TOKEN_SIGNING_ALGORITHM)) as CryptoKey;
      return [kid, { source, key, keyObject: KeyObject.from(key) }];
    } catch (err) {
      this.logger.warn(`JWKS key ${kid} skipped: ${String(err)}`);
      return undefined;
    }
  }
}
