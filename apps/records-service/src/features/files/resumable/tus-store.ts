import type { Readable } from 'node:stream';
import { DataStore, Upload } from '@tus/utils';

/** What the store hands each tus operation to (ResumableUploadService). */
export interface TusOperations {
  readonly expiryMs: number;
  create(upload: Upload): Promise<Upload>;
  getUpload(id: string): Promise<Upload>;
  write(source: Readable, id: string, offset: number): Promise<number>;
  terminate(id: string): Promise<void>;
  sweepExpired(): Promise<number>;
}

/**
 * The @tus/server data store of record files: no store of its own, every operation
 * goes to the resumable upload rules and through them to the storage port.
 */
export class TusStore extends DataStore {
  constructor(private readonly ops: TusOperations) {
    super();
    this.extensions = ['creation', 'creation-with-upload', 'checksum', 'termination', 'expiration'];
  }

  override create(upload: Upload): Promise<Upload> {
    return this.ops.create(upload);
  }

  override getUpload(id: string): Promise<Upload> {
    return this.ops.getUpload(id);
  }

  override write(source: Readable, id: string, offset: number): Promise<number> {
    return this.ops.write(source, id, offset);
  }

  override remove(id: string): Promise<void> {
    return this.ops.terminate(id);
  }

  override deleteExpired(): Promise<number> {
    return this.ops.sweepExpired();
  }

  override getExpiration(): number {
    return this.ops.expiryMs;
  }
}
