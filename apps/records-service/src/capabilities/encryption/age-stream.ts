import { createCipheriv, createDecipheriv } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { SealedObjectError } from './encryption.errors';

/**
 * The age v1 payload: STREAM (ChaCha20-Poly1305) over 64 KiB plaintext chunks, each nonce
 * an 11-byte big-endian chunk counter and a last-chunk flag, so a truncated, reordered or
 * extended object fails authentication. Only the last chunk may be shorter than 64 KiB;
 * it is empty only when the whole plaintext is.
 */
export const CHUNK = 64 * 1024;
const TAG = 16;
export const SEALED_CHUNK = CHUNK + TAG;
/** Bytes an OpenStream buffers on either side (the storage reads 1 MiB at a time). */
const STREAM_BUFFER = 1 << 20;

function chunkNonce(index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUIntBE(index, 5, 6);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/** One sealed chunk as its ciphertext and its tag (written one after the other, not copied together). */
export function sealChunk(key: Buffer, index: number, plain: Buffer, last: boolean): [Buffer, Buffer] {
  const c = createCipheriv('chacha20-poly1305', key, chunkNonce(index, last), { authTagLength: TAG });
  const body = c.update(plain);
  c.final();
  return [body, c.getAuthTag()];
}

/** The plaintext of one sealed chunk, or null when it does not authenticate with this index and flag. */
export function openChunk(key: Buffer, index: number, sealed: Buffer, last: boolean): Buffer | null {
  if (sealed.length < TAG) return null;
  const d = createDecipheriv('chacha20-poly1305', key, chunkNonce(index, last), { authTagLength: TAG });
  d.setAuthTag(sealed.subarray(sealed.length - TAG));
  const body = d.update(sealed.subarray(0, sealed.length - TAG));
  try {
    d.final();
  } catch {
    return null;
  }
  return body;
}

/** Number of chunks of a plaintext of `size` bytes (an empty plaintext is one empty chunk). */
export function chunkCount(size: number): number {
  return Math.max(1, Math.ceil(size / CHUNK));
}

/** Size of the stored object (the chunks, without the envelope) for a plaintext of `size` bytes. */
export function sealedSize(size: number): number {
  return size + chunkCount(size) * TAG;
}

/** A FIFO of buffers that hands out exact lengths without copying more than needed. */
class ByteQueue {
  private parts: Buffer[] = [];
  length = 0;

  push(b: Buffer): void {
    if (b.length === 0) return;
    this.parts.push(b);
    this.length += b.length;
  }

  take(n: number): Buffer {
    const first = this.parts[0];
    if (first && first.length === n) return this.shift(n, this.parts.shift() as Buffer);
    if (first && first.length > n) {
      this.parts[0] = first.subarray(n);
      return this.shift(n, first.subarray(0, n));
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const part = this.parts[0];
      const used = Math.min(part.length, n - filled);
      part.copy(out, filled, 0, used);
      filled += used;
      if (used === part.length) this.parts.shift();
      else this.parts[0] = part.subarray(used);
    }
    this.length -= n;
    return out;
  }

  private shift(n: number, b: Buffer): Buffer {
    this.length -= n;
    return b;
  }
}

/** Encrypts a plaintext stream into the chunks of the stored object. */
export class SealStream extends Transform {
  private readonly queue = new ByteQueue();
  private index = 0;

  constructor(private readonly key: Buffer) {
    super();
  }

  override _transform(data: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.queue.push(data);
    // A full chunk goes out only once a byte after it arrived: the last one is flagged.
    while (this.queue.length > CHUNK) this.pushChunk(this.queue.take(CHUNK), false);
    done();
  }

  override _flush(done: TransformCallback): void {
    this.pushChunk(this.queue.take(this.queue.length), true);
    done();
  }

  private pushChunk(plain: Buffer, last: boolean): void {
    const [body, tag] = sealChunk(this.key, this.index++, plain, last);
    if (body.length > 0) this.push(body);
    this.push(tag);
  }
}

export interface OpenOptions {
  /** Index of the first chunk the stream receives (a range read starts mid-object). */
  firstChunk?: number;
  /** Index of the object's last chunk, when known from the plaintext size (range reads). */
  lastChunk?: number;
  /** Plaintext bytes to drop at the start, and how many to pass on after them. */
  skip?: number;
  length?: number;
}

/**
 * Decrypts stored chunks back to plaintext. Any chunk that does not authenticate, a
 * missing last chunk or bytes after it end the stream with a SealedObjectError: no
 * unauthenticated byte is ever passed on.
 */
export class OpenStream extends Transform {
  private readonly queue = new ByteQueue();
  private index: number;
  private skip: number;
  private remaining: number;
  private ended = false;

  constructor(
    private readonly key: Buffer,
    private readonly options: OpenOptions = {},
  ) {
    // The object is read in 1 MiB pieces: with the 16 KiB default each piece would stall the
    // reader until the response took the first of its 16 chunks.
    super({ writableHighWaterMark: STREAM_BUFFER, readableHighWaterMark: STREAM_BUFFER });
    this.index = options.firstChunk ?? 0;
    this.skip = options.skip ?? 0;
    this.remaining = options.length ?? Number.POSITIVE_INFINITY;
  }

  override _transform(data: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.queue.push(data);
    try {
      // A full chunk is opened once a byte after it arrived: the last one has its own flag.
      while (this.queue.length > SEALED_CHUNK) this.emit1(this.queue.take(SEALED_CHUNK), this.atKnownLast());
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      if (this.queue.length > 0) this.emit1(this.queue.take(this.queue.length), this.flushIsLast());
      const rangeShort = Number.isFinite(this.remaining) && this.remaining > 0;
      if (rangeShort || (!this.ended && this.options.lastChunk === undefined)) {
        throw new SealedObjectError('truncated', 'the object ends before its last chunk');
      }
      done();
    } catch (err) {
      done(err as Error);
    }
  }

  private atKnownLast(): boolean {
    return this.options.lastChunk !== undefined && this.index === this.options.lastChunk;
  }

  /** At the end of the input: the last chunk unless a range read stops before it. */
  private flushIsLast(): boolean {
    return this.options.lastChunk === undefined || this.index === this.options.lastChunk;
  }

  private emit1(sealed: Buffer, last: boolean): void {
    if (this.ended) throw new SealedObjectError('trailing', 'bytes after the last chunk');
    const plain = openChunk(this.key, this.index, sealed, last);
    if (plain === null) throw this.damage(sealed, last);
    if (last && plain.length === 0 && this.index > 0) throw new SealedObjectError('chunk', 'empty last chunk');
    if (!last && sealed.length !== SEALED_CHUNK) throw new SealedObjectError('truncated', 'short chunk');
    this.index += 1;
    if (last) this.ended = true;
    this.pass(plain);
  }

  private damage(sealed: Buffer, last: boolean): SealedObjectError {
    // a full chunk that opens as a middle chunk at the end: the object was cut at a chunk boundary
    if (last && sealed.length === SEALED_CHUNK && openChunk(this.key, this.index, sealed, false)) {
      return new SealedObjectError('truncated', `the object ends after chunk ${this.index}`);
    }
    return new SealedObjectError('chunk', `chunk ${this.index} does not authenticate`);
  }

  private pass(plain: Buffer): void {
    let out = plain;
    if (this.skip > 0) {
      const dropped = Math.min(this.skip, out.length);
      out = out.subarray(dropped);
      this.skip -= dropped;
    }
    if (out.length > this.remaining) out = out.subarray(0, this.remaining);
    this.remaining -= out.length;
    if (out.length > 0) this.push(out);
  }
}

/** What to read from the stored object, and how to open it, for plaintext bytes start..end (inclusive). */
export interface SealedRange {
  /** Byte offsets (inclusive) in the stored object. */
  objectStart: number;
  objectEnd: number;
  options: OpenOptions;
}

export function sealedRange(size: number, start: number, end: number): SealedRange {
  if (start < 0 || end < start || end >= size) throw new RangeError(`bad range ${start}-${end} of ${size}`);
  const first = Math.floor(start / CHUNK);
  const last = Math.floor(end / CHUNK);
  return {
    objectStart: first * SEALED_CHUNK,
    objectEnd: Math.min((last + 1) * SEALED_CHUNK, sealedSize(size)) - 1,
    options: { firstChunk: first, lastChunk: chunkCount(size) - 1, skip: start - first * CHUNK, length: end - start + 1 },
  };
}
