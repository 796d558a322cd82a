import { PreconditionFailedError } from './errors.js';

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

/**
 * Read-modify-write that survives concurrent writers: reads the resource, lets `write` apply the
 * change with `If-Match` on the tag it read, and on a 412 ({@link PreconditionFailedError}) reads
 * again and calls `write` with the new version, up to `attempts` times.
 *
 * ```ts
 * await updateWithETag(() => vault.vaults.get(id), (v, etag) => vault.vaults.update(id, { name: v.name + '!' }, { ifMatch: etag }));
 * ```
 */
export async function updateWithETag<T, R>(
  read: () => Promise<Tagged<T>>,
  write: (current: T, etag: string | undefined) => Promise<R>,
  attempts = 3,
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const { data, etag } = await read();
    try {
      return await write(data, etag);
    } catch (e) {
      if (!(e instanceof PreconditionFailedError) || attempt >= attempts) throw e;
    }
  }
}
