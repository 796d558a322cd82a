import type { IncomingHttpHeaders } from 'node:http';

/** Methods a browser page may call the API with. */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Request headers a page may send (beyond the CORS-safelisted ones). */
export const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'Last-Event-ID',
  'X-Request-Id',
  // tus 1.0.0 (resumable uploads)
  'Tus-Resumable',
  'Upload-Length',
  'Upload-Offset',
  'Upload-Metadata',
  'Upload-Defer-Length',
  'Upload-Concat',
  'Upload-Checksum',
] as const;

/** Response headers a page may read (beyond the CORS-safelisted ones). */
export const EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-Id',
  // RFC 6750's challenge of a 401: a page's OAuth library tells a missing token from a refused one
  'WWW-Authenticate',
  'Idempotency-Replayed',
  'Repr-Digest',
  'Upload-Offset',
  'Upload-Length',
  'Upload-Expires',
  'Tus-Resumable',
  'Tus-Version',
  'Tus-Extension',
  'Tus-Max-Size',
  'Tus-Checksum-Algorithm',
  // the record file a finished tus upload became (docs/files.md)
  'Record-File-Url',
] as const;

/** How long a browser keeps a preflight answer: a removed origin stops working within ten minutes. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** What the gateway does about CORS for one request. */
export type CorsCase =
  /** No Origin, or the gateway's own origin (a page of a module host): nothing to do. */
  | { kind: 'none' }
  /** A preflight (OPTIONS with Origin and Access-Control-Request-Method): answered by the gateway. */
  | { kind: 'preflight'; origin: string; registered: boolean; method: string }
  /** Any other request from a page of another origin: forwarded, with CORS headers when registered. */
  | { kind: 'request'; origin: string; registered: boolean };

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * Sorts a request into the CORS cases. `registered` tells whether an origin may call the
 * API; `ownOrigin` whether it is one of the gateway's module hosts (same-origin).
 */
export function corsCase(
  method: string | undefined,
  headers: IncomingHttpHeaders,
  registered: (origin: string) => boolean,
  ownOrigin: (origin: string) => boolean,
): CorsCase {
  const origin = single(headers.origin)?.trim();
  if (!origin || ownOrigin(origin)) return { kind: 'none' };
  const requested = single(headers['access-control-request-method']);
  if (method === 'OPTIONS' && requested !== undefined) {
    return { kind: 'preflight', origin, registered: registered(origin), method: requested.trim() };
  }
  return { kind: 'request', origin, registered: registered(origin) };
}

/** True when a preflight asks for a method the API takes from browsers (methods are case-sensitive). */
export function allowedMethod(method: string): boolean {
  return (ALLOWED_METHODS as readonly string[]).includes(method);
}

/** Headers of a preflight answer for a registered origin. */
export function preflightHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': ALLOWED_METHODS.join(', '),
    'access-control-allow-headers': ALLOWED_HEADERS.join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}

/** Headers of every other answer to a registered origin. */
export function responseHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
  };
}

/** `Vary` with `Origin` added (answers differ by Origin, so caches must keep them apart). */
export function varyOrigin(vary: string | string[] | number | undefined): string {
  const names = (Array.isArray(vary) ? vary.join(',') : vary === undefined ? '' : String(vary))
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.includes('*') || names.some((n) => n.toLowerCase() === 'origin')) return names.join(', ');
  return [...names, 'Origin'].join(', ');
}
