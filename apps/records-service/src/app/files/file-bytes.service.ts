import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, LessThanOrEqual } from 'typeorm';
import { FilesEnv } from './files.env';
import { FilePurgeEntity } from './record-file.entity';
import { ByteRange, FileStorage } from './storage/file-storage';
import { Metered, MeteredStream } from './storage/metered-stream';

/** Bytes written for an upload that is not committed yet. */
export interface StoredBytes extends Metered {
  storageKey: string;
}

const PURGE_BATCH = 100;

/**
 * The bytes side of record files: writes uploads under generated keys, opens them
 * for download and carries out queued removals. Every upload first queues its own
 * removal (due after FILE_UPLOAD_GRACE_SECONDS); committing the metadata row cancels
 * it, so an upload cut short by a crash is removed later without anyone knowing it.
 */
@Injectable()
export class FileBytesService implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(FileBytesService.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly storage: FileStorage,
    private readonly env: FilesEnv,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.purgeDue(), this.env.FILE_PURGE_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * Streams `source` into storage under a new key; more than `limit` bytes fail
   * with `overLimit(limit)` and leave nothing stored.
   */
  async store(source: Readable, limit: number, overLimit: (limit: number) => Error): Promise<StoredBytes> {
    const storageKey = randomUUID();
    const due = new Date(Date.now() + this.env.FILE_UPLOAD_GRACE_SECONDS * 1000);
    await this.ds.getRepository(FilePurgeEntity).insert({ storageKey, purgeAfter: due });
    const meter = new MeteredStream(limit, overLimit);
    source.on('error', (err) => meter.destroy(err));
    meter.on('error', () => source.resume());
    try {
      await this.storage.write(storageKey, source.pipe(meter));
    } catch (err) {
      await this.discard(storageKey);
      throw meter.errored ?? err;
    }
    return { storageKey, ...meter.result() };
  }

  /** Removes uncommitted bytes at once (a refused or failed upload). */
  async discard(storageKey: string): Promise<void> {
    try {
      await this.storage.remove(storageKey);
      await this.ds.getRepository(FilePurgeEntity).delete({ storageKey });
    } catch (err) {
      this.log.warn(`bytes of ${storageKey} stay queued for removal: ${String(err)}`);
    }
  }

  open(storageKey: string, range?: ByteRange): Promise<Readable> {
    return this.storage.read(storageKey, range);
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
    return this.ds.transaction(async (m) => {
      const due = await m.find(FilePurgeEntity, {
        where: { purgeAfter: LessThanOrEqual(new Date()), ...(storageKey ? { storageKey } : {}) },
        order: { purgeAfter: 'ASC' },
        take: PURGE_BATCH,
        lock: { mode: 'pessimistic_write', onLocked: 'skip_locked' },
      });
      for (const row of due) {
        await this.storage.remove(row.storageKey);
        await m.delete(FilePurgeEntity, { storageKey: row.storageKey });
      }
      return due.length;
    });
  }
}
