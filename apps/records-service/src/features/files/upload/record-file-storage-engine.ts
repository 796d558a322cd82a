import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import type { ReceivedFile } from './upload-state';

type Callback = (error?: unknown, info?: Partial<Express.Multer.File>) => void;

/**
 * multer storage engine over the storage port: `receive` validates the metadata read
 * so far and streams the part to storage (never buffering it whole); `discard` removes
 * what was stored when multer aborts the request afterwards.
 */
export class RecordFileStorageEngine implements StorageEngine {
  private stored?: string;

  constructor(
    private readonly receive: (file: Express.Multer.File) => Promise<ReceivedFile>,
    private readonly discard: (storageKey: string) => Promise<void>,
  ) {}

  _handleFile(_req: Request, file: Express.Multer.File, cb: Callback): void {
    this.receive(file).then(
      (received) => {
        this.stored = received.stored.storageKey;
        cb(null, { size: received.stored.size });
      },
      (err: unknown) => {
        file.stream.resume();
        cb(err);
      },
    );
  }

  _removeFile(_req: Request, _file: Express.Multer.File, cb: (error: Error | null) => void): void {
    const key = this.stored;
    if (!key) return cb(null);
    this.discard(key).then(
      () => cb(null),
      (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
    );
  }
}
