/** Where the SDK gets the bearer token of each request. */
export interface TokenProvider {
  /** A token valid now (refreshed when close to its expiry). */
  getToken(signal?: AbortSignal): Promise<string>;
  /** The platform refused `token` (401): forget it, so that the next {@link getToken} obtains another. */
  invalidate?(token: string): void | Promise<void>;
}

/** A fixed token (a test token, one obtained elsewhere); a 401 is the caller's to handle. */
export function staticToken(token: string): TokenProvider {
  return { getToken: async () => token };
}
