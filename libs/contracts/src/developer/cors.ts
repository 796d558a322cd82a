/**
 * Browser origins allowed to call the API (CORS), registered on client applications in
 * the developer module and published into a JetStream key-value bucket that the gateway
 * watches (docs/gateway.md, "CORS").
 */

/** The bucket's name; with an events namespace `ns` it is `ns_cors_origins`. */
export const CORS_ORIGINS_BUCKET = 'cors_origins';

export function corsOriginsBucket(namespace = ''): string {
  return namespace ? `${namespace}_${CORS_ORIGINS_BUCKET}` : CORS_ORIGINS_BUCKET;
}

/** Value of one application's entry (key `app.<hex of the client id>`). */
export interface ApplicationOriginsEntry {
  clientId: string;
  tenantId: string;
  /** Serialized origins (`scheme://host[:port]`, lower case, default port left out). */
  origins: string[];
  publishedAt: string;
}

/** Key of an application's entry: client ids may hold `~`, which KV keys do not allow. */
export function corsOriginsKey(clientId: string): string {
  return `app.${Array.from(new TextEncoder().encode(clientId), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Longest origin accepted (scheme, host and port). */
const MAX_ORIGIN_LENGTH = 300;

/**
 * The serialized origin of `value` (RFC 6454: scheme, host and port, the default port
 * left out, the host in lower case and punycode), or undefined when `value` is not one:
 * only `http` and `https`, no path (not even `/`), query, fragment, user name or wildcard.
 */
export function serializeOrigin(value: string): string | undefined {
  if (value.length > MAX_ORIGIN_LENGTH || !/^https?:\/\/[^/?#@\s*\\]+$/i.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.origin === 'null' || url.hostname === '') return undefined;
  return url.origin;
}
