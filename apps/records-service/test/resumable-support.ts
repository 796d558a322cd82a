import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import * as tus from 'tus-js-client';
import type { Caller } from './support';

export const uploadsPath = (vaultId: string, recordId: string) =>
  `/api/v1/vault/vault-id/${vaultId}/records/record-id/${recordId}/uploads`;

export const endpointOf = (
  app: INestApplication,
  vaultId: string,
  recordId: string,
) =>
  `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}${uploadsPath(vaultId, recordId)}`;

export const digest = (algorithm: 'sha1' | 'sha256', b: Buffer) =>
  createHash(algorithm).update(b).digest('base64');

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
}

/** Runs tus-js-client (no retries, no fingerprint store) for `bytes` as the caller. */
export function tusUpload(c: Caller, bytes: Buffer, o: TusOptions): TusRun {
  const chunkSize = o.chunkSize ?? bytes.length;
  let run!: tus.Upload;
  const done = new Promise<tus.HttpResponse>((resolve, reject) => {
    run = new tus.Upload(bytes, {
      endpoint: o.endpoint,
      uploadUrl: o.uploadUrl,
      chunkSize,
      retryDelays: [],
      storeFingerprintForResuming: false,
      headers: { Authorization: `Bearer ${c.token}` },
      metadata: o.metadata ?? {},
      onBeforeRequest: (req) => {
        if (!o.checksum || req.getMethod() !== 'PATCH') return;
        const offset = Number(req.getHeader('Upload-Offset'));
        const chunk = bytes.subarray(
          offset,
          Math.min(offset + chunkSize, bytes.length),
        );
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
export const statusOf = (err: unknown) =>
  (err as tus.DetailedError).originalResponse?.getStatus();
