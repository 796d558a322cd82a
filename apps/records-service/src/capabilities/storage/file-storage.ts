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
  /**
   * Every key the store holds something of (the storage audit): `complete` for an object
   * readable under the key, false for what an unfinished write or append left beside it.
   */
  abstract list(): AsyncIterable<ListedKey>;

  /*
   * Appending over several requests (resumable uploads): `beginAppend` prepares the key
   * and returns the adapter's state; `append` writes `source` from `offset` (bytes the
   * caller never recorded beyond it are overwritten) durably and returns the state that
   * includes them; `releaseAppend` drops what a state no longer needed holds (a state
   * superseded by a recorded one, or one the caller refused); `finishAppend` makes the
   * object visible under the key once all `length` bytes are appended. `remove` clears
   * everything of an unfinished append too.
   */
  abstract beginAppend(key: string): Promise<AppendState>;
  abstract append(key: string, state: AppendState, offset: number, length: number, source: Readable): Promise<AppendState>;
  abstract releaseAppend(key: string, state: AppendState, kept: AppendState): Promise<void>;
  abstract finishAppend(key: string, state: AppendState, length: number): Promise<void>;
}

/** A key the store holds something of (FileStorage.list). */
export interface ListedKey {
  key: string;
  complete: boolean;
}

/** What an adapter keeps about an append in progress (stored with the upload, JSON). */
export type AppendState = Record<string, unknown>;

/** No object under the key (removed, or never written). */
export class MissingObjectError extends Error {
  constructor(key: string) {
    super(`no stored object under ${key}`);
    this.name = 'MissingObjectError';
  }
}
