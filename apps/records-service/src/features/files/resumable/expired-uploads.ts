import { Logger } from '@nestjs/common';
import type { FileBytesService } from '../../../capabilities/storage/file-bytes.service';
import type { ResumableUploadRepository } from '../../../persistence/resumable-uploads/resumable-upload.repository';
import type { Transactions } from '@vault/platform/persistence';
import type { UploadHashes } from './upload-hashes';

const SWEEP_BATCH = 100;

/**
 * Ends every expired upload (any caller's): its row deleted, its reservation released, its
 * running hash dropped and its bytes removed; in batches, the rows locked with SKIP LOCKED so
 * instances sweeping together share the work. One sweep at a time per instance.
 */
export class ExpiredUploads {
  constructor(
    private readonly tx: Transactions,
    private readonly uploads: ResumableUploadRepository,
    private readonly bytes: FileBytesService,
    private readonly hashes: UploadHashes,
  ) {}

  private readonly log = new Logger('ResumableUploadService');
  /** The periodic sweep, from start() on. */
  private timer?: NodeJS.Timeout;
  /** The sweep running, joined by any other asked meanwhile. */
  private sweeping?: Promise<number>;

  /** Sweeps every `intervalMs` from now on. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.sweep(), intervalMs);
    this.timer.unref();
  }

  /** No sweep starts any more; resolves once the one running has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** Runs a sweep (or joins the one running); answers how many uploads it ended. */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepAll().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepAll(): Promise<number> {
    let total = 0;
    // uploads expired here or swept by another instance
    this.hashes.dropExpired();
    try {
      for (;;) {
        const keys = await this.tx.run(async (tx) => {
          const expired = await this.uploads.lockExpired(tx, SWEEP_BATCH);
          for (const row of expired) {
            await this.uploads.delete(row.id, tx);
            this.hashes.drop(row.id);
          }
          return expired.map((r) => r.storageKey);
        });
        for (const key of keys) await this.bytes.abandon(key);
        total += keys.length;
        if (keys.length < SWEEP_BATCH) return total;
      }
    } catch (err) {
      this.log.warn(`removing expired uploads failed, retrying later: ${String(err)}`);
      return total;
    }
  }
}
