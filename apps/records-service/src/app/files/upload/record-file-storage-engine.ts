import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import type { ReceivedFile } from '../files.service';

type Callback = (error?: unknown, info?: Partial<Express.Multer.File>) => void;

/** multer's file object once this engine handled it. */
export type ReceivedMulterFile = Express.Multer.File & ReceivedFile;

/**
 * multer storage engine over the storage port: `receive` validates the metadata read
 * so far and streams the part to storage (never buffering it whole); `discard` removes
 * what was stored when multer aborts the request afterwards.
 */
export class RecordFileStorageEngine implements StorageEngine {
  constructor(
    private readonly receive: (req: Request, file: Express.Multer.File) => Promise<ReceivedFile>,
    private readonly discard: (storageKey: string) => Promise<void>,
  ) {}

  _handleFile(req: Request, file: Express.Multer.File, cb: Callback): void {
    this.receive(req, file).then(
      (received) => cb(null, { ...received, size: received.stored.size } as Partial<Express.Multer.File>),
      (err: unknown) => {
        file.stream.resume();
        cb(err);
      },
    );
  }

  _removeFile(_req: Request, file: Express.Multer.File, cb: (error: Error | null) => void): void {
    const stored = (file as Partial<ReceivedMulterFile>).stored;
    if (!stored) return cb(null);
    this.discard(stored.storageKey).then(
      () => cb(null),
      (err: unknown) => cb(err instanceof Error ? err : new Error(String(err))),
    );
  }
}
