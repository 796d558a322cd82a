import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import * as tus from 'tus-js-client';
import { eventually } from './files-support';
import type { Caller } from './support';

export const uploadsPath = (vaultId: string, recordId: string) =>
  `/api/v1/vault/vault-id/${vaultId}/records/record-id/${recordId}/uploads`;

export const endpointOf = (app: INestApplication, vaultId: string, recordId: string) =>
  `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}${uploadsPath(vaultId, recordId)}`;

export const digest = (algorithm: 'sha1' | 'sha256', b: Buffer) => createHash(algorithm).update(b).digest('base64');

export interface TusRun {
  upload: tus.Upload;
  /** Settles with the last response of a finished upload, or rejects with the client's error. */
  done: Promise<tus.HttpResponse>;
}

export interface TusOptions {
  endpoint?: string;
  uploadUrl?: string;
  chunkSize?: number;
  metadata?: Record<string, string>;
  /** Per-chunk Upload-Checksum computed from the chunk the client is about to send (or a wrong one). */
  checksum?: 'sha1' | 'sha256' | 'wrong';
  onProgress?: (sent: number, upload: tus.Upload) => void;
  /** tus-js-client's retries (none by default): a retry asks HEAD for the offset again. */
  retryDelays?: number[];
}

/** Runs tus-js-client (no retries unless asked, no fingerprint store) for `bytes` as the caller. */
export function tusUpload(c: Caller, bytes: Buffer, o: TusOptions): TusRun {
  const chunkSize = o.chunkSize ?? bytes.length;
  let run!: tus.Upload;
  const done = new Promise<tus.HttpResponse>((resolve, reject) => {
    run = new tus.Upload(bytes, {
      endpoint: o.endpoint,
      uploadUrl: o.uploadUrl,
      chunkSize,
      retryDelays: o.retryDelays ?? [],
      storeFingerprintForResuming: false,
      headers: { Authorization: `Bearer ${c.token}` },
      metadata: o.metadata ?? {},
      onBeforeRequest: (req) => {
        if (!o.checksum || req.getMethod() !== 'PATCH') return;
        const offset = Number(req.getHeader('Upload-Offset'));
        const chunk = bytes.subarray(offset, Math.min(offset + chunkSize, bytes.length));
        const value =
          o.checksum === 'wrong'
            ? `sha256 ${digest('sha256', Buffer.from('not the chunk'))}`
            : `${o.checksum} ${digest(o.checksum, chunk)}`;
        req.setHeader('Upload-Checksum', value);
      },
      onProgress: (sent) => o.onProgress?.(sent, run),
      onSuccess: (payload) => resolve(payload.lastResponse),
      onError: reject,
    });
  });
  // an aborted run never settles on its own; callers that abort do not await `done`
  done.catch(() => undefined);
  run.start();
  return { upload: run, done };
}

/** The HTTP status tus-js-client saw when it gave up. */
export const statusOf = (err: unknown) => (err as tus.DetailedError).originalResponse?.getStatus();

export interface AcrossInstances {
  /** Starts a records-service instance on the suite's database and storage. */
  boot: () => Promise<INestApplication>;
  vaultId: string;
  recordId: string;
  metadata: Record<string, string>;
  chunkSize: number;
  /** The offset the upload's row records. */
  recordedOffset: () => Promise<number>;
}

/**
 * Sends `bytes` to one records-service instance until its first chunk is recorded (the
 * second is cut), stops that instance and sends the rest to a new one, which never saw
 * the first bytes (a restart, or another replica taking over). Settles like
 * `tusUpload(...).done` for the second part; both instances are closed in any case.
 */
export async function uploadAcrossInstances(c: Caller, bytes: Buffer, o: AcrossInstances): Promise<tus.HttpResponse> {
  let first: INestApplication | undefined = await o.boot();
  let second: INestApplication | undefined;
  try {
    const started = tusUpload(c, bytes, {
      endpoint: endpointOf(first, o.vaultId, o.recordId),
      metadata: o.metadata,
      chunkSize: o.chunkSize,
      // tus-js-client sends a chunk once the one before was answered: the first is recorded
      onProgress: (sent, up) => {
        if (sent > o.chunkSize) void up.abort();
      },
    });
    await eventually(async () => (await o.recordedOffset()) >= o.chunkSize, 10_000);
    await first.close();
    first = undefined;
    second = await o.boot();
    const id = (started.upload.url as string).split('/').pop() as string;
    return await tusUpload(c, bytes, {
      uploadUrl: `${endpointOf(second, o.vaultId, o.recordId)}/${id}`,
      chunkSize: o.chunkSize,
    }).done;
  } finally {
    await first?.close();
    await second?.close();
  }
}
