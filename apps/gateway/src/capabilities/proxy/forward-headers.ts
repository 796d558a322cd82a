import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { REQUEST_ID_HEADER } from '@vault/platform/http';

/** Headers that describe one connection and never cross the proxy (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Forwarding headers a client could forge; the gateway, as the edge, sets its own. */
const CLIENT_FORWARDING = new Set([
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-forwarded-port',
  'x-real-ip',
  // The gateway already answered "100 Continue" to the client itself.
  'expect',
]);

export interface ForwardContext {
  requestId: string;
  clientIp: string;
}

/** Names listed in a Connection header (they are hop-by-hop too). */
function connectionTokens(value: string | string[] | undefined): Set<string> | undefined {
  if (!value) return undefined;
  const list = Array.isArray(value) ? value.join(',') : value;
  return new Set(list.split(',').map((t) => t.trim().toLowerCase()));
}

function copyEndToEnd(source: IncomingHttpHeaders, skip: Set<string>): OutgoingHttpHeaders {
  const extra = connectionTokens(source.connection);
  const out: OutgoingHttpHeaders = {};
  for (const name in source) {
    if (HOP_BY_HOP.has(name) || skip.has(name) || extra?.has(name)) continue;
    out[name] = source[name];
  }
  return out;
}

const NOTHING = new Set<string>();

/**
 * Request headers sent upstream: end-to-end headers kept (Host included),
 * hop-by-hop and client forwarding headers dropped, then X-Forwarded-For/
 * -Proto/-Host and the request id set. A chunked body stays chunked.
 */
export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, ctx: ForwardContext): OutgoingHttpHeaders {
  const out = copyEndToEnd(incoming, CLIENT_FORWARDING);
  out['x-forwarded-for'] = ctx.clientIp;
  out['x-forwarded-proto'] = 'https';
  if (incoming.host) out['x-forwarded-host'] = incoming.host;
  out[REQUEST_ID_HEADER] = ctx.requestId;
  if (incoming['transfer-encoding'] !== undefined && incoming['content-length'] === undefined) {
    out['transfer-encoding'] = 'chunked';
  }
  return out;
}

/** Response headers sent to the client: hop-by-hop dropped, the request id echoed. */
export function clientResponseHeaders(upstream: IncomingHttpHeaders, requestId: string): OutgoingHttpHeaders {
  const out = copyEndToEnd(upstream, NOTHING);
  out[REQUEST_ID_HEADER] = requestId;
  return out;
}
