/** A resource's body with the `ETag` it was read at (for `If-Match` on the next write). */
export interface Tagged<T> {
  data: T;
  etag: string | undefined;
}

/** The strong `ETag` of an answer. */
export function etagOf(response: Response): string | undefined {
  return response.headers.get('etag') ?? undefined;
}

/** Headers for a write that applies only to the version read (`If-Match`); 412 otherwise. */
export function ifMatch(etag: string | undefined): Record<string, string> {
  return etag ? { 'if-match': etag } : {};
}

/** Headers for a read that answers 304 while the version is still `etag`. */
export function ifNoneMatch(etag: string | undefined): Record<string, string> {
  return etag ? { 'if-none-match': etag } : {};
}
