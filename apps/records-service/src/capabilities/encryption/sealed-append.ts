import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Transform, TransformCallback } from 'node:stream';
import { CHUNK, chunkCount, SEALED_CHUNK, sealChunk } from './age-stream';
import { SealedObjectError } from './encryption.errors';

/**
 * An append-only (resumable) upload encrypted as it arrives. The upload gets its envelope
 * (a fresh file key sealed to the vault's public key) when it is created; the envelope is
 * kept with the upload's row (`SealedUpload`). Each chunk of a request goes through
 * `ChunkSealer`: every whole 64 KiB STREAM chunk is sealed with its index as nonce (the
 * upload's length is known, so the last-chunk flag is known too) and written to the store;
 * only the incomplete end (< 64 KiB) stays unsealed, and it is kept with the row, encrypted
 * under a key derived from the payload key with a random nonce, until the next request
 * takes it back or the final request seals it as the last chunk. The stored object is
 * therefore exactly the age STREAM payload of the committed file, and no plaintext byte of
 * the upload is ever at rest.
 */
export interface SealedUpload {
  /** The vault whose key the envelope is sealed to. */
  vaultId: string;
  /** The age header and payload nonce (base64). */
  envelope: string;
  /** The unsealed end of the plaintext, encrypted (base64 nonce ‖ ciphertext ‖ tag), if any. */
  tail?: string;
}

const TAIL_INFO = 'vault-upload-tail:v1';
const TAIL_NONCE = 12;
const TAG = 16;

function tailKey(payloadKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', payloadKey, Buffer.alloc(0), TAIL_INFO, 32));
}

/** The additional data of a tail: the stored object it belongs to and its plaintext offset. */
const tailAad = (storageKey: string, at: number) => Buffer.from(`${storageKey}:${at}`);

/** Offset in the stored object where the chunk holding plaintext offset `offset` starts. */
export function sealedOffset(offset: number): number {
  return Math.floor(offset / CHUNK) * SEALED_CHUNK;
}

/** Plaintext offset of the start of the unsealed tail of an upload at `offset`. */
export function tailStart(offset: number): number {
  return Math.floor(offset / CHUNK) * CHUNK;
}

/** Encrypts the unsealed tail (plaintext starting at `at`) of the upload stored under `storageKey`. */
export function sealTail(payloadKey: Buffer, storageKey: string, at: number, plain: Buffer): string {
  const nonce = randomBytes(TAIL_NONCE);
  const c = createCipheriv('chacha20-poly1305', tailKey(payloadKey), nonce, { authTagLength: TAG });
  c.setAAD(tailAad(storageKey, at), { plaintextLength: plain.length });
  return Buffer.concat([nonce, c.update(plain), c.final(), c.getAuthTag()]).toString('base64');
}

/** The plaintext of a tail sealed by `sealTail`; a tail that does not authenticate is a SealedObjectError. */
export function openTail(payloadKey: Buffer, storageKey: string, at: number, sealed: string): Buffer {
  const raw = Buffer.from(sealed, 'base64');
  if (raw.length < TAIL_NONCE + TAG) throw new SealedObjectError('chunk', 'the upload tail is cut');
  const d = createDecipheriv('chacha20-poly1305', tailKey(payloadKey), raw.subarray(0, TAIL_NONCE), { authTagLength: TAG });
  d.setAAD(tailAad(storageKey, at), { plaintextLength: raw.length - TAIL_NONCE - TAG });
  d.setAuthTag(raw.subarray(raw.length - TAG));
  const body = d.update(raw.subarray(TAIL_NONCE, raw.length - TAG));
  try {
    d.final();
  } catch {
    throw new SealedObjectError('chunk', 'the upload tail does not authenticate');
  }
  return body;
}

/**
 * Seals the plaintext of one request of an upload of `length` bytes, starting at the
 * chunk whose unsealed start `head` is (the tail kept from the previous request): whole
 * chunks go out sealed as they fill; at the end of the upload the rest is sealed as the last
 * chunk, otherwise it stays in `rest` for the caller to keep (sealTail).
 */
export class ChunkSealer extends Transform {
  private parts: Buffer[] = [];
  private queued = 0;
  private index: number;
  private readonly lastIndex: number;
  private plainEnd: number;
  /** The unsealed end after the input ended (empty once the upload's last chunk is sealed). */
  rest: Buffer<ArrayBufferLike> = Buffer.alloc(0);

  /** Plaintext offset where `rest` starts (the start of the first chunk not sealed yet). */
  get restAt(): number {
    return this.index * CHUNK;
  }

  constructor(
    private readonly key: Buffer,
    offset: number,
    private readonly length: number,
    head: Buffer,
  ) {
    super({ highWaterMark: 1 << 20 });
    this.index = Math.floor(offset / CHUNK);
    this.lastIndex = chunkCount(length) - 1;
    this.plainEnd = offset;
    if (tailStart(offset) + head.length !== offset) throw new SealedObjectError('chunk', 'the upload tail has the wrong length');
    this.queue(head);
  }

  override _transform(data: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.plainEnd += data.length;
    this.queue(data);
    while (this.queued >= CHUNK) this.sealNext(CHUNK);
    done();
  }

  override _flush(done: TransformCallback): void {
    const all = this.takeBytes(this.queued);
    if (this.plainEnd >= this.length && this.index === this.lastIndex) this.seal(all);
    else this.rest = all;
    done();
  }

  private queue(b: Buffer): void {
    if (b.length === 0) return;
    this.parts.push(b);
    this.queued += b.length;
  }

  private takeBytes(n: number): Buffer {
    const all = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.queued);
    const out = all.subarray(0, n);
    const left = all.subarray(n);
    this.parts = left.length > 0 ? [left] : [];
    this.queued = left.length;
    return out;
  }

  private sealNext(n: number): void {
    this.seal(this.takeBytes(n));
  }

  private seal(plain: Buffer): void {
    const [body, tag] = sealChunk(this.key, this.index, plain, this.index === this.lastIndex);
    this.index += 1;
    if (body.length > 0) this.push(body);
    this.push(tag);
  }
}
