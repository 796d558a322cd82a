import { createHash, Hash } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';

/** What a MeteredStream saw once it ended. */
export interface Metered {
  size: number;
  sha256: string;
}

/**
 * Passes bytes through while counting them and computing their SHA-256; fails with
 * `overLimit(limit)` as soon as more than `limit` bytes went through.
 */
export class MeteredStream extends Transform {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly overLimit: (limit: number) => Error,
  ) {
    super({ highWaterMark: 1 << 20 });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return cb(this.overLimit(this.limit));
    this.hash.update(chunk);
    cb(null, chunk);
  }

  /** Size and hex digest; call after the stream ended. */
  result(): Metered {
    return { size: this.bytes, sha256: this.hash.copy().digest('hex') };
  }
}
