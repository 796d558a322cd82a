import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { CHUNK, OpenStream, SealStream } from './age-stream';
import { SealedObjectError } from './encryption.errors';
import { ChunkSealer, openTail, sealedOffset, sealTail, tailStart } from './sealed-append';

/** Seals `plain` as an upload sent in requests ending at `cuts`, the way the store receives it. */
async function sealInRequests(key: Buffer, plain: Buffer, cuts: number[]): Promise<Buffer> {
  let stored = Buffer.alloc(0);
  let tail: string | undefined;
  let offset = 0;
  for (const end of [...cuts, plain.length]) {
    const head = tail ? openTail(key, 'k', tailStart(offset), tail) : Buffer.alloc(0);
    const sealer = new ChunkSealer(key, offset, plain.length, head);
    const out = await buffer(Readable.from([plain.subarray(offset, end)]).pipe(sealer));
    stored = Buffer.concat([stored.subarray(0, sealedOffset(offset)), out]);
    tail = sealer.rest.length > 0 ? sealTail(key, 'k', sealer.restAt, sealer.rest) : undefined;
    offset = end;
  }
  expect(tail).toBeUndefined();
  return stored;
}

describe('sealed appends (resumable uploads encrypted as they arrive)', () => {
  const key = randomBytes(32);

  it.each([
    ['one request', 3 * CHUNK + 5, []],
    ['cuts off the chunk grid', 3 * CHUNK + 5, [1, 1000, CHUNK + 3, 2 * CHUNK + 9]],
    ['cuts on the chunk grid', 2 * CHUNK, [CHUNK, CHUNK + 1]],
    ['a last chunk that is whole', 2 * CHUNK, [CHUNK - 1]],
    ['an empty file', 0, []],
    ['a small file in bytes', 5, [1, 2, 3, 4]],
  ])('gives exactly the age STREAM payload of the whole file: %s', async (_what, size, cuts) => {
    const plain = randomBytes(size);
    const stored = await sealInRequests(key, plain, cuts);
    const whole = await buffer(Readable.from([plain]).pipe(new SealStream(key)));
    expect(stored.equals(whole)).toBe(true);
    expect((await buffer(Readable.from([stored]).pipe(new OpenStream(key)))).equals(plain)).toBe(true);
  });

  it('refuses a tail that was changed, moved to another offset or object, or cut', () => {
    const sealed = sealTail(key, 'k', CHUNK, Buffer.from('tail bytes'));
    expect(openTail(key, 'k', CHUNK, sealed).toString()).toBe('tail bytes');
    const flipped = Buffer.from(sealed, 'base64');
    flipped[14] ^= 1;
    for (const [k, at, s] of [
      ['k', CHUNK, flipped.toString('base64')],
      ['k', 0, sealed],
      ['other', CHUNK, sealed],
      ['k', CHUNK, Buffer.alloc(10).toString('base64')],
    ] as const) {
      expect(() => openTail(key, k, at, s)).toThrow(SealedObjectError);
    }
    expect(() => openTail(randomBytes(32), 'k', CHUNK, sealed)).toThrow(SealedObjectError);
  });

  it('refuses a tail of the wrong length for the offset', () => {
    expect(() => new ChunkSealer(key, 10, 100, Buffer.alloc(9))).toThrow(SealedObjectError);
  });
});
