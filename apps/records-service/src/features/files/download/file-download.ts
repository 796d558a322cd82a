import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { FileBytesService } from '../../../capabilities/storage/file-bytes.service';
import { fileNotFound, rangeNotSatisfiable } from '../files.errors';
import type { RecordFileEntity } from '../../../persistence/record-files/record-file.entity';
import { MissingObjectError } from '../../../capabilities/storage/file-storage';
import { reprDigestOf } from '../upload/upload-metadata';
import { contentDisposition, etagMatches, rangeIfUnchanged } from '@vault/platform/http';

/** What a download sends: a file's current bytes, or one of its versions. */
export type DownloadSource = Pick<RecordFileEntity, 'fileName' | 'mediaType' | 'size' | 'sha256' | 'storageKey' | 'createdAt'>;

/**
 * Streams a stored file (or one version of it): Content-Type (stored media type), Content-Length, ETag
 * (quoted SHA-256), attachment disposition; `If-None-Match` gives 304, one `Range`
 * 206 (416 when it lies beyond the end; `If-Range` with another tag sends it whole).
 * Bytes missing from storage (a delete racing the download) answer 404.
 */
export async function sendFile(req: Request, res: Response, file: DownloadSource, bytes: FileBytesService) {
  const etag = `"${file.sha256}"`;
  res.setHeader('ETag', etag);
  res.setHeader('Repr-Digest', reprDigestOf(file.sha256));
  res.setHeader('Accept-Ranges', 'bytes');
  res.setHeader('Cache-Control', 'private, no-cache');
  res.setHeader('Last-Modified', file.createdAt.toUTCString());
  if (etagMatches(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  const range = rangeIfUnchanged(req.headers.range, req.headers['if-range'], etag, file.size);
  if (range === 'unsatisfiable') {
    throw rangeNotSatisfiable(file.size);
  }
  // a delete that committed after the row was read leaves no bytes: the file is gone
  const stream = await bytes.open(file.storageKey, range).catch((err: unknown) => {
    throw err instanceof MissingObjectError ? fileNotFound() : err;
  });
  res.status(range ? 206 : 200);
  res.setHeader('Content-Type', file.mediaType);
  res.setHeader('Content-Disposition', contentDisposition(file.fileName));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : file.size));
  if (range) res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
  try {
    await pipeline(stream, res);
  } catch {
    res.destroy();
  }
}
