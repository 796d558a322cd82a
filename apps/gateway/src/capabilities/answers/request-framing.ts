import { COMMON_ERRORS, GATEWAY_ERRORS } from '@vault/contracts';
import type { IncomingMessage } from 'node:http';
import type { Refusal } from './problem-response';

/** Answer to an HTTP version the gateway does not speak (RFC 9110 §15.6.6). */
export const VERSION_NOT_SUPPORTED: Refusal = {
  entry: GATEWAY_ERRORS.httpVersionNotSupported,
  detail: 'Only HTTP/1.1 (and HTTP/1.0) is served on this port.',
};

/** A version `HTTP/<major>[.<minor>]` other than 1.0 and 1.1. */
export function unsupportedVersion(version: string): boolean {
  return /^HTTP\/\d(\.\d)?$/.test(version) && version !== 'HTTP/1.1' && version !== 'HTTP/1.0';
}

/**
 * Why a parsed request cannot be forwarded as it was framed, or undefined
 * when it can: an HTTP version other than 1.x (Node parses `HTTP/2.0` and
 * `HTTP/0.9` request lines), more than one Host header (RFC 9112 §3.2: the
 * routed host and the one a module reads could differ), a transfer coding
 * other than `chunked` (RFC 9112 §6.1: the gateway would forward the body
 * without decoding it, its coding lost).
 */
export function framingRefusal(req: IncomingMessage): Refusal | undefined {
  if (req.httpVersionMajor !== 1) return VERSION_NOT_SUPPORTED;
  if ((req.headersDistinct.host?.length ?? 0) > 1) {
    return { entry: COMMON_ERRORS.requestError, status: 400, detail: 'The request has more than one Host header.' };
  }
  const codings = req.headersDistinct['transfer-encoding'];
  if (codings !== undefined && (codings.length !== 1 || codings[0].trim().toLowerCase() !== 'chunked')) {
    return {
      entry: GATEWAY_ERRORS.notImplemented,
      detail: 'Only the chunked transfer coding is implemented; send the body chunked or with a Content-Length.',
    };
  }
  return undefined;
}
