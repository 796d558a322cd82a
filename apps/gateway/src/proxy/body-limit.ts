import type { IncomingHttpHeaders } from 'node:http';

export interface BodyLimits {
  json: number;
  other: number;
}

/** application/json and every `+json` media type (problem+json, merge-patch+json...). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const semi = contentType.indexOf(';');
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/** The byte limit that applies to the request body by its content type. */
export function bodyLimitFor(headers: IncomingHttpHeaders, limits: BodyLimits): number {
  return isJsonMediaType(headers['content-type']) ? limits.json : limits.other;
}

/** True when Content-Length already announces more than the limit. */
export function declaresTooMuch(headers: IncomingHttpHeaders, limit: number): boolean {
  const length = headers['content-length'];
  return length !== undefined && Number(length) > limit;
}

export function describeLimit(limit: number, json: boolean): string {
  return `The request body exceeds the gateway limit of ${limit} bytes${json ? ' for JSON' : ''}.`;
}
