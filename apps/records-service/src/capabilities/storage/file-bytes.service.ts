import { createHash, type Hash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline, Transform } from 'node:stream';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { fileBytes } from '@vault/platform/observability';
import { PurgeQueueRepository } from '../../persistence/record-files/purge-queue.repository';
import { BlobEnvelopeRepository } from '../../persistence/vault-keys/blob-envelope.repository';
import { BlobCipherService } from '../encryption/blob-cipher.service';
import { encryptionProblem } from '../encryption/encryption.problems';
import { OpenStream, sealedSize } from '../encryption/age-stream';
import { ChunkSealer, openTail, SealedUpload, sealedOffset, sealTail, tailStart } from '../encryption/sealed-append';
import { Transactions } from '@vault/platform/persistence';
import { PeriodicTask } from '@vault/platform/runtime';
import { AppendState, ByteRange, FileStorage } from './file-storage';
import { Metered, MeteredStream } from './metered-stream';
import { FilesEnv } from './storage.env';

/** Bytes written for an upload that is not committed yet. */
export interface StoredBytes extends Metered {
  storageKey: string;
  /** The object is encrypted (age): its envelope, sealed to the key of `envelopeVaultId`. */
  envelope?: Buffer;
  envelopeVaultId?: string;
}

const PURGE_BATCH = 100;

/**
 * The stream once its first chunk decrypted (or it ended): a damaged start of the object
 * is refused before any header of the answer is sent. Later damage ends the stream.
 */
function firstChunkChecked(stream: Readable): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const settle = (err?: Error) => {
      stream.off('readable', ready).off('end', ready).off('error', settle);
      if (err) reject(err);
      else resolve(stream);
    };
    const ready = () => settle();
    stream.once('readable', ready).once('end', ready).once('error', settle);
  });
}

/** The encryption of an append in progress, kept in its state (none: a plaintext upload begun before). */
function sealedOf(state: AppendState): SealedUpload | undefined {
  const sealed = state['sealed'] as SealedUpload | undefined;
  return sealed && typeof sealed.envelope === 'string' ? sealed : undefined;
}

/** Where an append-only (resumable) upload stands in storage. */
export interface AppendProgress {
  storageKey: string;
  offset: number;
  length: number;
  state: AppendState;
}

/** One chunk appended (not recorded yet): the progress it leads to and what was seen. */
export interface AppendedChunk {
  next: AppendProgress;
  written: number;
  /** Digest of the chunk alone in the algorithm asked for (base64), for Upload-Checksum. */
  chunkDigest?: string;
}

export type ChunkAlgorithm = 'sha1' | 'sha256';

/**
 * The bytes side of record files: writes uploads under generated keys, opens them
 * for download and carries out queued removals. Every upload first queues its own
 * removal (due after FILE_UPLOAD_GRACE_SECONDS); committing the metadata row cancels
 * it, so an upload cut short by a crash is removed later without anyone knowing it.
 */
@Injectable()
export class FileBytesService implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(FileBytesService.name);
  /** The purge of due removals, every FILE_PURGE_INTERVAL_MS. */
  private readonly purging: PeriodicTask;
  private running?: Promise<void>;

  constructor(
    private readonly tx: Transactions,
    private readonly purges: PurgeQueueRepository,
    private readonly storage: FileStorage,
    private readonly env: FilesEnv,
    private readonly cipher: BlobCipherService,
    private readonly seals: BlobEnvelopeRepository,
  ) {
    this.purging = new PeriodicTask('file purge', env.FILE_PURGE_INTERVAL_MS, () => this.purgeDue(), this.log);
  }

  onModuleInit(): void {
    this.purging.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.purging.stop();
    await this.running;
  }

  /**
   * Streams `source` into storage under a new key, encrypted to the key of `vaultId` when
   * given (size and SHA-256 are the plaintext's); more than `limit` bytes fail with
   * `overLimit(limit)` and leave nothing stored.
   */
  async store(source: Readable, limit: number, overLimit: (limit: number) => Error, vaultId?: string): Promise<StoredBytes> {
    const storageKey = randomUUID();
    const due = new Date(Date.now() + this.env.FILE_UPLOAD_GRACE_SECONDS * 1000);
    await this.purges.enqueue(storageKey, due);
    const sealing =
      vaultId && this.cipher.atRest
        ? await this.cipher.seal(vaultId).catch((err: unknown) => Promise.reject(encryptionProblem(err)))
        : undefined;
    const meter = new MeteredStream(limit, overLimit);
    source.on('error', (err) => meter.destroy(err));
    meter.on('error', () => source.resume());
    const body = sealing ? source.pipe(meter).pipe(sealing.stream) : source.pipe(meter);
    // the meter's refusal ends the encryption too; the store sees it fail (its listeners may come later)
    if (sealing) meter.on('error', (err) => sealing.stream.destroy(err));
    sealing?.stream.on('error', () => undefined);
    try {
      await this.storage.write(storageKey, body);
    } catch (err) {
      await this.discard(storageKey);
      throw meter.errored ?? err;
    }
    const stored = meter.result();
    fileBytes.inc({ direction: 'in' }, stored.size);
    return { storageKey, ...stored, ...(sealing && { envelope: sealing.envelope, envelopeVaultId: vaultId }) };
  }

  /** Removes uncommitted bytes at once (a refused or failed upload). */
  async discard(storageKey: string): Promise<void> {
    try {
      await this.storage.remove(storageKey);
      await this.purges.dequeue(storageKey);
    } catch (err) {
      this.log.warn(`bytes of ${storageKey} stay queued for removal: ${String(err)}`);
    }
  }

  /**
   * Prepares storage for a resumable upload under a new key, its removal queued first
   * (due at `purgeAfter`: the upload's expiry plus the grace period, a backstop for the
   * sweeper of expired uploads). With `vaultId` the upload is encrypted as it arrives
   * (SealedUpload: its envelope is made now and kept in the returned state).
   */
  async beginAppend(purgeAfter: Date, vaultId?: string): Promise<{ storageKey: string; state: AppendState }> {
    const storageKey = randomUUID();
    const envelope =
      vaultId && this.cipher.atRest
        ? await this.cipher.newEnvelope(vaultId).catch((err: unknown) => Promise.reject(encryptionProblem(err)))
        : undefined;
    await this.purges.enqueue(storageKey, purgeAfter);
    try {
      const state = await this.storage.beginAppend(storageKey);
      if (!envelope || !vaultId) return { storageKey, state };
      const sealed: SealedUpload = { vaultId, envelope: envelope.toString('base64') };
      return { storageKey, state: { ...state, sealed } };
    } catch (err) {
      await this.discard(storageKey);
      throw err;
    }
  }

  /**
   * The envelope of an upload encrypted as it arrives, for its blob row in `vaultId` (a
   * record moved to another vault while the upload was open: rewrapped to that vault's key,
   * the same file key), or nothing for a plaintext upload.
   */
  async sealFor(at: AppendProgress, vaultId: string): Promise<Pick<StoredBytes, 'envelope' | 'envelopeVaultId'>> {
    const sealed = sealedOf(at.state);
    if (!sealed) return {};
    const envelope = Buffer.from(sealed.envelope, 'base64');
    if (sealed.vaultId === vaultId) return { envelope, envelopeVaultId: vaultId };
    const rewrapped = await this.cipher
      .rewrap(envelope, sealed.vaultId, vaultId)
      .catch((err: unknown) => Promise.reject(encryptionProblem(err)));
    return { envelope: rewrapped, envelopeVaultId: vaultId };
  }

  /**
   * Appends one chunk durably, feeding its bytes to `whole` (the running hash of the
   * file, when the caller has one) and computing the chunk's own digest when asked; at
   * most `length - offset` bytes are taken (more is refused by `overLimit`). The caller
   * records `next` or refuses it (`releaseAppend`).
   */
  async appendChunk(
    at: AppendProgress,
    source: Readable,
    algorithm: ChunkAlgorithm | undefined,
    overLimit: () => Error,
    whole?: Hash,
  ): Promise<AppendedChunk> {
    const chunkHash = algorithm ? createHash(algorithm) : undefined;
    let written = 0;
    const room = at.length - at.offset;
    const meter = new Transform({
      highWaterMark: 1 << 20,
      transform(chunk: Buffer, _enc, cb) {
        written += chunk.length;
        if (written > room) return cb(overLimit());
        whole?.update(chunk);
        chunkHash?.update(chunk);
        cb(null, chunk);
      },
    });
    source.on('error', (err) => meter.destroy(err));
    const sealed = sealedOf(at.state);
    const state = sealed
      ? await this.appendSealed(at, sealed, source.pipe(meter))
      : await this.storage.append(at.storageKey, at.state, at.offset, at.length, source.pipe(meter));
    fileBytes.inc({ direction: 'in' }, written);
    const next: AppendProgress = { ...at, offset: at.offset + written, state };
    return { next, written, chunkDigest: chunkHash?.digest('base64') };
  }

  /**
   * The plaintext `body` of an encrypted upload from `at` on: the tail kept from the last
   * request first, every whole chunk sealed into the store as it fills, the new unsealed
   * end kept encrypted in the returned state (none once the last chunk is sealed).
   */
  private async appendSealed(at: AppendProgress, sealed: SealedUpload, body: Readable): Promise<AppendState> {
    let key: Buffer;
    let head: Buffer;
    try {
      key = await this.cipher.payloadKeyOf(sealed.vaultId, Buffer.from(sealed.envelope, 'base64'));
      head = sealed.tail ? openTail(key, at.storageKey, tailStart(at.offset), sealed.tail) : Buffer.alloc(0);
    } catch (err) {
      body.destroy();
      throw encryptionProblem(err);
    }
    const sealer = new ChunkSealer(key, at.offset, at.length, head);
    body.on('error', (err) => sealer.destroy(err));
    const { sealed: _previous, ...storeState } = at.state;
    const state = await this.storage.append(
      at.storageKey,
      storeState,
      sealedOffset(at.offset),
      sealedSize(at.length),
      body.pipe(sealer),
    );
    const next: SealedUpload = { vaultId: sealed.vaultId, envelope: sealed.envelope };
    if (sealer.rest.length > 0) next.tail = sealTail(key, at.storageKey, sealer.restAt, sealer.rest);
    return { ...state, sealed: next };
  }

  /** Drops what the storage held for `dropped` and `kept` no longer needs. */
  async releaseAppend(storageKey: string, dropped: AppendState, kept: AppendState): Promise<void> {
    await this.storage
      .releaseAppend(storageKey, dropped, kept)
      .catch((err: unknown) => this.log.warn(`leftovers of ${storageKey} stay until the upload ends: ${String(err)}`));
  }

  /** Makes the appended bytes the object of the key (they still await their commit). */
  async finishAppend(at: AppendProgress): Promise<void> {
    const sealed = sealedOf(at.state);
    if (!sealed) return this.storage.finishAppend(at.storageKey, at.state, at.length);
    let state = at.state;
    // an empty file has one empty last chunk, and no request that sealed it
    if (at.length === 0) state = await this.appendSealed({ ...at, offset: 0 }, sealed, Readable.from([]));
    await this.storage.finishAppend(at.storageKey, state, sealedSize(at.length));
  }

  /** The SHA-256 (hex) of a stored object, read back whole (an upload hashed nowhere else). */
  async sha256Of(storageKey: string): Promise<string> {
    const hash = createHash('sha256');
    for await (const chunk of await this.storage.read(storageKey)) hash.update(chunk as Buffer);
    return hash.digest('hex');
  }

  /** The plaintext SHA-256 (hex) of a finished append, read back whole and decrypted when it is encrypted. */
  async sha256OfAppended(at: AppendProgress): Promise<string> {
    const sealed = sealedOf(at.state);
    if (!sealed) return this.sha256Of(at.storageKey);
    const hash = createHash('sha256');
    try {
      const key = await this.cipher.payloadKeyOf(sealed.vaultId, Buffer.from(sealed.envelope, 'base64'));
      const plain = (await this.storage.read(at.storageKey)).pipe(new OpenStream(key));
      for await (const chunk of plain) hash.update(chunk as Buffer);
    } catch (err) {
      throw encryptionProblem(err);
    }
    return hash.digest('hex');
  }

  /**
   * The plaintext (or a range of it) of a stored object for a download, counted out as it
   * is read (file_bytes_total). An encrypted blob is decrypted, reading only the chunks a
   * range touches; a damaged one fails before the first byte (409 file_damaged) or ends
   * the stream, never giving unauthenticated bytes.
   */
  async open(storageKey: string, range?: ByteRange): Promise<Readable> {
    const seal = await this.seals.byStorageKey(storageKey);
    if (!seal?.envelope || !seal.envelopeVaultId) return this.counted(await this.storage.read(storageKey, range));
    const { envelope, envelopeVaultId, size } = seal;
    try {
      if (!range) {
        const stream = await this.cipher.open(envelopeVaultId, envelope);
        return await firstChunkChecked(this.counted(await this.storage.read(storageKey), stream));
      }
      const r = await this.cipher.openRange(envelopeVaultId, envelope, size, range.start, range.end);
      const object = await this.storage.read(storageKey, { start: r.objectStart, end: r.objectEnd });
      return await firstChunkChecked(this.counted(object, r.stream));
    } catch (err) {
      throw encryptionProblem(err);
    }
  }

  /** The stored object as it is (ciphertext of an encrypted blob), or a range of it, for a `.age` export. */
  async openStored(storageKey: string, range?: ByteRange): Promise<Readable> {
    return this.counted(await this.storage.read(storageKey, range));
  }

  private counted(source: Readable, decrypt?: Transform): Readable {
    const counted = new Transform({
      highWaterMark: 1 << 20,
      transform(chunk: Buffer, _enc, cb) {
        fileBytes.inc({ direction: 'out' }, chunk.length);
        cb(null, chunk);
      },
    });
    // Errors of either side reach the other: a failed read fails the download, a dropped download stops the read.
    if (decrypt) pipeline(source, decrypt, counted, () => undefined);
    else pipeline(source, counted, () => undefined);
    return counted;
  }

  /** Runs a purge of every due removal now (and waits for it). */
  purgeNow(): Promise<void> {
    return this.purgeDue();
  }

  /** Removes the bytes of one deleted file now; on failure the queue retries later. */
  async purgeKey(storageKey: string): Promise<void> {
    await this.purgeBatch(storageKey).catch((err: unknown) =>
      this.log.warn(`bytes of ${storageKey} stay queued for removal: ${String(err)}`),
    );
  }

  /**
   * Removes the bytes of an upload that will never commit (expired or terminated),
   * through the queue: only a key still queued is removed, never a committed file's.
   */
  async abandon(storageKey: string): Promise<void> {
    if (await this.purges.dueNow(storageKey)) await this.purgeKey(storageKey);
  }

  /** Carries out due removals, a batch at a time; several instances share the queue. */
  private purgeDue(): Promise<void> {
    this.running ??= this.purgeBatches().finally(() => (this.running = undefined));
    return this.running;
  }

  private async purgeBatches(): Promise<void> {
    try {
      while ((await this.purgeBatch()) === PURGE_BATCH);
    } catch (err) {
      this.log.warn(`purging stored bytes failed, retrying later: ${String(err)}`);
    }
  }

  private purgeBatch(storageKey?: string): Promise<number> {
    return this.tx.run(async (tx) => {
      const due = await this.purges.lockDue(tx, PURGE_BATCH, storageKey);
      for (const row of due) {
        await this.storage.remove(row.storageKey);
        await this.purges.dequeue(row.storageKey, tx);
      }
      return due.length;
    });
  }
}
