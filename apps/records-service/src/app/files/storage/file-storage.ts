import type { Readable } from 'node:stream';

/** Inclusive byte range of a stored object. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where the bytes of record files live. Keys are generated ids, never file names.
 * `write` makes the object visible under the key only when all bytes are durable;
 * on failure it leaves nothing behind. `read` of a key without an object fails with
 * `MissingObjectError`. `remove` is idempotent and also clears what an interrupted
 * `write` of the key may have left.
 */
export abstract class FileStorage {
  abstract write(key: string, source: Readable): Promise<void>;
  abstract read(key: string, range?: ByteRange): Promise<Readable>;
  abstract remove(key: string): Promise<void>;
}

/** No object under the key (removed, or never written). */
export class MissingObjectError extends Error {
  constructor(key: string) {
    super(`no stored object under ${key}`);
    this.name = 'MissingObjectError';
  }
}
