import { close, createWriteStream, ftruncate, open as openFd } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { earlyFlushFs } from './early-flush-fs';
import { AppendState, ByteRange, FileStorage, ListedKey, MissingObjectError } from './file-storage';

const KEY = /^[0-9a-f-]{36}$/;
const CHUNK = 1 << 20;
/** A large file starts going to disk every this many bytes instead of all at the closing fsync. */
const FLUSH_EVERY = 64 << 20;
/**
 * A resumable chunk (a few MiB, fsynced before it is recorded) starts going to disk every
 * this many bytes, so that its closing fsync waits for the last part only.
 */
const APPEND_FLUSH_EVERY = 2 << 20;
const openP = promisify(openFd);
const ftruncateP = promisify(ftruncate);
const closeP = promisify(close);

/**
 * Files under a folder: `tmp/<key>.part` while writing (flushed to disk in the
 * background every 64 MiB, so that the end does not wait for the whole file), flushed
 * to disk (fsync) when complete, then renamed atomically to
 * `objects/<first two characters>/<key>`.
 */
export class FsFileStorage extends FileStorage {
  private readonly root: string;

  constructor(dir: string) {
    super();
    this.root = resolve(dir);
  }

  async write(key: string, source: Readable): Promise<void> {
    const temp = this.tempPath(key);
    const final = this.objectPath(key);
    try {
      await mkdir(dirname(temp), { recursive: true });
      const out = createWriteStream(temp, { flags: 'wx', flush: true, highWaterMark: CHUNK, fs: earlyFlushFs(FLUSH_EVERY) });
      await pipeline(source, out);
      await mkdir(dirname(final), { recursive: true });
      await rename(temp, final);
      await syncDir(dirname(final));
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const handle = await open(this.objectPath(key), 'r').catch((err: NodeJS.ErrnoException) => {
      throw err.code === 'ENOENT' ? new MissingObjectError(key) : err;
    });
    return handle.createReadStream({ start: range?.start, end: range?.end, highWaterMark: CHUNK });
  }

  async remove(key: string): Promise<void> {
    await rm(this.objectPath(key), { force: true });
    await rm(this.tempPath(key), { force: true });
  }

  /** A resumable upload writes `tmp/<key>.part` in place, chunk after chunk. */
  async beginAppend(key: string): Promise<AppendState> {
    const temp = this.tempPath(key);
    await mkdir(dirname(temp), { recursive: true });
    const handle = await open(temp, 'wx');
    await handle.close();
    return {};
  }

  /**
   * Writes the chunk at `offset` (cutting what lies beyond it first, on the same open
   * file) and flushes it to disk: the chunk is recorded only once it is durable.
   */
  async append(key: string, state: AppendState, offset: number, _length: number, source: Readable): Promise<AppendState> {
    const temp = this.tempPath(key);
    const fd = await openP(temp, 'r+');
    try {
      await ftruncateP(fd, offset);
    } catch (err) {
      await closeP(fd);
      throw err;
    }
    // the stream owns the descriptor from here: it syncs and closes it, also on failure
    const out = createWriteStream(temp, {
      fd,
      start: offset,
      flush: true,
      highWaterMark: CHUNK,
      fs: earlyFlushFs(APPEND_FLUSH_EVERY),
    });
    await pipeline(source, out);
    return state;
  }

  async releaseAppend(): Promise<void> {
    // bytes beyond the recorded offset are overwritten by the next chunk or cut when finishing
  }

  /** Cuts anything beyond the recorded end, syncs and renames the file into objects/. */
  async finishAppend(key: string, _state: AppendState, length: number): Promise<void> {
    const temp = this.tempPath(key);
    const final = this.objectPath(key);
    const handle = await open(temp, 'r+');
    try {
      await handle.truncate(length);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await mkdir(dirname(final), { recursive: true });
    await rename(temp, final);
    await syncDir(dirname(final));
  }

  async *list(): AsyncIterable<ListedKey> {
    for (const shard of await readdir(join(this.root, 'objects')).catch(() => [] as string[])) {
      for (const key of await readdir(join(this.root, 'objects', shard))) yield { key, complete: true };
    }
    for (const name of await readdir(join(this.root, 'tmp')).catch(() => [] as string[])) {
      yield { key: name.replace(/\.part$/, ''), complete: false };
    }
  }

  /** Where the bytes of a committed key are (tests look there to prove removal). */
  objectPath(key: string): string {
    return join(this.root, 'objects', checkKey(key).slice(0, 2), key);
  }

  private tempPath(key: string): string {
    return join(this.root, 'tmp', `${checkKey(key)}.part`);
  }
}

/** Makes a rename durable: fsync of the folder holding the new name. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not a storage key: ${key}`);
  return key;
}
