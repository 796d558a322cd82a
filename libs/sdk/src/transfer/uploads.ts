import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import * as tus from 'tus-js-client';
import type { TokenProvider } from '../auth/token-provider.js';
import { nodeRequestOptions, type TlsOptions } from '../policy/net.js';
import { chunkChecksum, sha256Hex } from './digest.js';

/** A file to upload to a record, resumable (tus 1.0, docs/files.md). */
export interface UploadOptions {
  vaultId: string;
  recordId: string;
  /** A path on disk (resumable across runs) or the bytes. */
  file: string | Uint8Array;
  /** The record file's name (default: the path's base name). */
  fileName?: string;
  /** Groups the files of one submission (default: a timestamp). */
  correlationId?: string;
  fileType?: 'document' | 'image' | 'cloud';
  /** Mandatory for images. */
  caption?: string;
  uploadTitle?: string;
  uploadDetail?: string;
  /** The media type served on download. */
  contentType?: string;
  /** Bytes per PATCH (default 5 MiB). */
  chunkSize?: number;
  /** Progress in bytes the platform acknowledged. */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
  /**
   * A file where upload URLs are kept by file fingerprint (path, size, mtime): an upload that
   * was interrupted (Ctrl-C, crash) continues from the platform's offset on the next call.
   */
  resumeStore?: string;
  /** The creation's Idempotency-Key (default: one made for this upload). */
  idempotencyKey?: string;
}

export interface UploadResult {
  recordFileId: string;
  /** The download path, relative to the records module's base address. */
  recordFileUrl: string;
  /** The tus upload's URL. */
  uploadUrl: string;
  sha256: string;
  size: number;
  /** true when an earlier, interrupted upload was continued. */
  resumed: boolean;
}

export interface UploadContext {
  recordsUrl: string;
  tokens?: TokenProvider;
  tls?: TlsOptions;
}

/**
 * Uploads with tus-js-client: the whole file's SHA-256 in the metadata (the platform refuses a
 * file whose bytes do not match it), the bearer token on every request, the creation under an
 * Idempotency-Key, chunk retries with tus's own backoff, and resumption from a stored URL.
 */
export async function uploadFile(ctx: UploadContext, o: UploadOptions): Promise<UploadResult> {
  const isPath = typeof o.file === 'string';
  const size = isPath ? (await stat(o.file as string)).size : (o.file as Uint8Array).byteLength;
  const sha256 = await sha256Hex(o.file);
  const fileName = o.fileName ?? (isPath ? basename(o.file as string) : undefined);
  if (!fileName) throw new Error('uploadFile: fileName is required for bytes');
  const key = o.idempotencyKey ?? randomUUID();
  const found: { id?: string; url?: string } = {};
  const storing = new Set<Promise<unknown>>();
  const input = isPath ? createReadStream(o.file as string) : Buffer.from(o.file as Uint8Array);
  const endpoint = `${ctx.recordsUrl}/vault/vault-id/${encodeURIComponent(o.vaultId)}/records/record-id/${encodeURIComponent(o.recordId)}/uploads`;
  const metadata: Record<string, string> = {
    fileName,
    correlationId: o.correlationId ?? new Date().toISOString().replace(/\D/g, '').slice(2, 14),
    fileType: o.fileType ?? 'document',
    sha256,
    ...optional({ caption: o.caption, uploadTitle: o.uploadTitle, uploadDetail: o.uploadDetail, contentType: o.contentType }),
  };
  const chunkSize = o.chunkSize ?? 5 * 1024 * 1024;
  let resumed = false;
  return new Promise<UploadResult>((resolve, reject) => {
    const upload = new tus.Upload(input, {
      endpoint,
      metadata,
      uploadSize: size,
      chunkSize,
      retryDelays: [0, 500, 2000, 5000],
      httpStack: new tus.DefaultHttpStack(nodeRequestOptions(ctx.tls)),
      urlStorage: o.resumeStore ? tracked(fileUrlStorage(o.resumeStore), storing) : undefined,
      storeFingerprintForResuming: Boolean(o.resumeStore),
      removeFingerprintOnSuccess: true,
      onBeforeRequest: async (req) => {
        const token = await ctx.tokens?.getToken();
        if (token) req.setHeader('authorization', `Bearer ${token}`);
        if (req.getMethod() === 'POST') req.setHeader('idempotency-key', key);
        if (req.getMethod() === 'PATCH') {
          const offset = Number(req.getHeader('Upload-Offset'));
          req.setHeader('upload-checksum', await chunkChecksum(o.file, offset, Math.min(chunkSize, size - offset)));
        }
      },
      onAfterResponse: (_req, res) => {
        found.id ??= res.getHeader('record-file-id') || undefined;
        found.url ??= res.getHeader('record-file-url') || undefined;
      },
      onProgress: (sent, total) => o.onProgress?.(sent, total),
      onSuccess: () => {
        o.signal?.removeEventListener('abort', onAbort);
        if (!found.id || !found.url) return reject(new Error('the upload completed without Record-File-Id'));
        const result = { recordFileId: found.id, recordFileUrl: found.url, uploadUrl: upload.url ?? '', sha256, size, resumed };
        // tus removes the finished upload from the resume file as it calls this: a process that exits
        // before that write ends would leave the file locked for the next upload.
        void Promise.allSettled([...storing]).then(() => resolve(result));
      },
      onError: (error) => {
        o.signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
    });
    const onAbort = () => {
      void upload.abort(false);
      reject(o.signal?.reason);
    };
    if (o.signal?.aborted) return onAbort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    void (async () => {
      if (o.resumeStore) {
        const previous = await upload.findPreviousUploads();
        if (previous[0]) {
          resumed = true;
          upload.resumeFromPreviousUpload(previous[0]);
        }
      }
      upload.start();
    })().catch(reject);
  });
}

type UrlStorage = NonNullable<tus.UploadOptions['urlStorage']>;

/** The storage, with every operation in flight held in `pending` until it settles. */
function tracked(storage: UrlStorage, pending: Set<Promise<unknown>>): UrlStorage {
  const hold = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    p.then(
      () => pending.delete(p),
      () => pending.delete(p),
    );
    return p;
  };
  return {
    findAllUploads: () => hold(storage.findAllUploads()),
    findUploadsByFingerprint: (fingerprint) => hold(storage.findUploadsByFingerprint(fingerprint)),
    removeUpload: (key) => hold(storage.removeUpload(key)),
    addUpload: (fingerprint, upload) => hold(storage.addUpload(fingerprint, upload)),
  };
}

/** tus-js-client's Node `FileUrlStorage` (exported at run time, missing from its type declarations). */
function fileUrlStorage(path: string): NonNullable<tus.UploadOptions['urlStorage']> {
  const Storage = (tus as unknown as { FileUrlStorage: new (path: string) => NonNullable<tus.UploadOptions['urlStorage']> })
    .FileUrlStorage;
  return new Storage(path);
}

function optional(fields: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Record<string, string>;
}
