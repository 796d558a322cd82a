import { createHash, randomUUID } from 'node:crypto';
import { Transform } from 'node:stream';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Transactions } from '@vault/platform/persistence';
import { PeriodicTask } from '@vault/platform/runtime';
import { PurgeQueueRepository } from '../../persistence/record-files/purge-queue.repository';
import { BlobEnvelopeRepository, BlobSeal } from '../../persistence/vault-keys/blob-envelope.repository';
import { BlobCipherService } from '../encryption/blob-cipher.service';
import { EncryptionEnv } from '../encryption/encryption.env';
import { countJobBlob, exportJobMetrics, setPlaintextBlobs } from '../encryption/encryption.metrics';
import { FileStorage, MissingObjectError } from './file-storage';

const PAGE = 20;
/** A copy being written stays queued for removal this long (a crash leaves nothing for ever; a slow copy is not cut). */
const COPY_GRACE_MS = 86_400_000;
const REWRAP_BATCH = 100;

/** What one pass did. */
export interface EncryptionPass {
  encrypted: number;
  mismatched: number;
  rewrapped: number;
  plaintextLeft: number;
}

/**
 * The background job of encryption at rest. It seals plaintext blobs (stored before
 * encryption, or by a resumable upload begun before uploads were sealed as they arrive):
 * their bytes are read, checked against their
 * SHA-256 and written encrypted under a new key; one short transaction then points the
 * blob (and file rows) at the copy and queues the plaintext object for removal after a
 * grace period. Files stay readable throughout, and a pass stopped anywhere resumes: an
 * unfinished copy is still queued for removal, the blob still plaintext. It also rewraps
 * envelopes sealed to another vault than the blob's (a moved record): database only.
 */
@Injectable()
export class BlobEncryptionJob implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(BlobEncryptionJob.name);
  // a failed pass logs its own warning (run); the task only schedules the next one
  private readonly task: PeriodicTask;
  private running?: Promise<EncryptionPass>;

  constructor(
    private readonly tx: Transactions,
    private readonly storage: FileStorage,
    private readonly purges: PurgeQueueRepository,
    private readonly seals: BlobEnvelopeRepository,
    private readonly cipher: BlobCipherService,
    private readonly env: EncryptionEnv,
  ) {
    exportJobMetrics();
    const pass = () => this.pass().catch(() => undefined);
    this.task = new PeriodicTask('background encryption', env.ENCRYPTION_JOB_INTERVAL_MS, pass, this.log);
  }

  onModuleInit(): void {
    if (this.env.ENCRYPTION_JOB_INTERVAL_MS !== 0) this.task.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.task.stop();
    await this.running?.catch(() => undefined);
  }

  /** One pass over every blob to rewrap or encrypt (one at a time per process); `onBlob` reports progress. */
  pass(onBlob?: (p: EncryptionPass) => void): Promise<EncryptionPass> {
    this.running ??= this.run(onBlob).finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(onBlob?: (p: EncryptionPass) => void): Promise<EncryptionPass> {
    const pass: EncryptionPass = { encrypted: 0, mismatched: 0, rewrapped: 0, plaintextLeft: 0 };
    try {
      pass.rewrapped = await this.rewrapForeign();
      let after: string | null = null;
      for (let page = await this.seals.plaintext(after, PAGE); page.length > 0; page = await this.seals.plaintext(after, PAGE)) {
        for (const blob of page) {
          const outcome = await this.encrypt(blob);
          if (outcome === 'encrypted') pass.encrypted += 1;
          if (outcome === 'mismatch') pass.mismatched += 1;
          onBlob?.(pass);
        }
        after = page[page.length - 1].id;
      }
    } catch (err) {
      this.log.warn(`encryption pass stopped, resuming at the next one: ${String(err)}`);
      throw err;
    } finally {
      pass.plaintextLeft = (await this.seals.counts()).plaintext;
      setPlaintextBlobs(pass.plaintextLeft);
    }
    return pass;
  }

  /** Rewraps envelopes sealed to another vault than their blob's; returns how many. */
  private async rewrapForeign(): Promise<number> {
    let total = 0;
    for (;;) {
      const done = await this.tx.run(async (tx) => {
        const foreign = await this.seals.lockForeign(tx, REWRAP_BATCH);
        for (const b of foreign) {
          const envelope = await this.cipher.rewrap(b.envelope as Buffer, b.envelopeVaultId as string, b.vaultId);
          await this.seals.rewrapped(tx, b.id, envelope, b.vaultId);
        }
        return foreign.length;
      });
      total += done;
      if (done < REWRAP_BATCH) return total;
    }
  }

  /**
   * Encrypts one plaintext blob: `mismatch` when its bytes do not match its SHA-256 (left
   * as they are), `gone` when it was removed or changed meanwhile.
   */
  private async encrypt(blob: BlobSeal): Promise<'encrypted' | 'mismatch' | 'gone'> {
    const storageKey = randomUUID();
    await this.purges.enqueue(storageKey, new Date(Date.now() + COPY_GRACE_MS));
    const { envelope, stream } = await this.cipher.seal(blob.vaultId);
    const hash = createHash('sha256');
    const hashing = new Transform({
      highWaterMark: 1 << 20,
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        cb(null, chunk);
      },
    });
    const source = await this.storage.read(blob.storageKey).catch((err: unknown) => {
      if (err instanceof MissingObjectError) return null;
      throw err;
    });
    if (!source) {
      await this.purges.dueNow(storageKey);
      return 'gone';
    }
    source.on('error', (err) => hashing.destroy(err));
    hashing.on('error', (err) => stream.destroy(err));
    await this.storage.write(storageKey, source.pipe(hashing).pipe(stream));
    if (hash.digest('hex') !== blob.sha256) {
      this.log.error(`blob ${blob.id}: stored bytes do not match their SHA-256; left unencrypted`);
      countJobBlob('mismatch');
      await this.purges.dueNow(storageKey);
      return 'mismatch';
    }
    const sealed = await this.tx.run((tx) =>
      this.seals.sealed(tx, blob, { storageKey, envelope }, this.env.ENCRYPTION_JOB_GRACE_SECONDS),
    );
    if (!sealed) {
      await this.purges.dueNow(storageKey);
      return 'gone';
    }
    countJobBlob('encrypted');
    return 'encrypted';
  }
}
