import type { OutgoingHttpHeaders } from 'node:http';

/** One year, subdomains included (the module hosts are subdomains of GATEWAY_DOMAIN). */
export const HSTS = 'max-age=31536000; includeSubDomains';
const FRAME_ANCESTORS = "frame-ancestors 'none'";

/** Sent on every answer, replacing whatever a module set. */
const ALWAYS: OutgoingHttpHeaders = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/** A module's Content-Security-Policy kept, `frame-ancestors 'none'` added when it has no frame-ancestors. */
function withFrameAncestors(policy: OutgoingHttpHeaders[string]): string {
  const text = Array.isArray(policy) ? policy.join('; ') : policy === undefined ? '' : String(policy).trim();
  if (text === '') return FRAME_ANCESTORS;
  if (/(^|;)\s*frame-ancestors(\s|;|$)/i.test(text)) return text;
  return `${text.replace(/;\s*$/, '')}; ${FRAME_ANCESTORS}`;
}

/**
 * The security headers of every answer the gateway sends, relayed or its own
 * (docs/gateway.md): nosniff, no framing, no referrer, HSTS over TLS only,
 * and `Cache-Control: no-store` on every error and on every answer whose
 * module set no Cache-Control (a module's own, such as a download's
 * `private, no-cache`, is kept on its successful answers).
 */
export function withSecurityHeaders(headers: OutgoingHttpHeaders, status: number, tls: boolean): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { ...headers, ...ALWAYS };
  // RFC 6797: never over plain HTTP (the browser would ignore it there anyway).
  if (tls) out['strict-transport-security'] = HSTS;
  out['content-security-policy'] = withFrameAncestors(headers['content-security-policy']);
  if (status >= 400 || headers['cache-control'] === undefined) out['cache-control'] = 'no-store';
  return out;
}
