/** An inclusive byte range of a body. */
export interface ByteRange {
  start: number;
  end: number;
}

/** `unsatisfiable`: answer 416; `undefined`: send the whole body. */
export type RangeAnswer = ByteRange | 'unsatisfiable' | undefined;

/**
 * One `bytes=` range of RFC 9110 §14.1.2 for a body of `size` bytes. Several ranges,
 * other units or a malformed header are ignored (whole body), as the RFC allows.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * The range to send of a body of `size` bytes tagged `etag`: the `Range` header's, unless an
 * `If-Range` names another tag (RFC 9110 §13.1.5, strong comparison: the body changed since the
 * client's bytes, so it gets the whole of it).
 */
export function rangeIfUnchanged(
  range: string | undefined,
  ifRange: string | string[] | undefined,
  etag: string,
  size: number,
): RangeAnswer {
  return ifRange && ifRange !== etag ? undefined : parseRange(range, size);
}

/** Whether an If-None-Match header matches the entity tag (weak comparison). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => bare(t) === bare(etag));
}

/**
 * RFC 6266 attachment disposition: an ASCII fallback name (anything outside printable
 * ASCII, quotes and backslashes replaced by `_`) and the exact name as `filename*`.
 */
export function contentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
