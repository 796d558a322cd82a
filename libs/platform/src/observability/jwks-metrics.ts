import { Counter } from 'prom-client';
import { exportMetrics, scrapedGauge } from './metrics';

/** JWKS refreshes that failed (the last good key set is kept). */
export const jwksRefreshFailures = new Counter({
  name: 'jwks_refresh_failures_total',
  help: 'Refreshes of the token signing key set (JWKS) that failed.',
  registers: [],
});

/** What a JWKS key store tells of its cache. */
export interface JwksCacheState {
  keys: number;
  /** Date.now() of the last successful refresh, else of the store's start (stale since then). */
  lastRefreshAt: number;
}

const jwksKeys = scrapedGauge('jwks_keys_cached', 'Token signing keys held by the JWKS cache.', [] as const);
const jwksAge = scrapedGauge(
  'jwks_last_refresh_age_seconds',
  'Seconds since the JWKS cache last refreshed successfully (since it started, before its first success).',
  [] as const,
);

/** Reports a JWKS key store's cache at each scrape until the returned function is called. */
export function watchJwksCache(state: () => JwksCacheState): () => void {
  exportMetrics(jwksRefreshFailures);
  const unwatchKeys = jwksKeys.watch(() => [{ labels: {}, value: state().keys }]);
  const unwatchAge = jwksAge.watch(() => [{ labels: {}, value: (Date.now() - state().lastRefreshAt) / 1000 }]);
  return () => {
    unwatchKeys();
    unwatchAge();
  };
}
