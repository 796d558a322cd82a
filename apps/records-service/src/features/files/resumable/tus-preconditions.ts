import type { Request } from 'express';
import type { ProblemException } from '@vault/platform/errors';
import {
  invalidUploadFields,
  tusBadHeader,
  tusContentTypeRefused,
  tusExtensionNotOffered,
  tusUploadNotFound,
  tusVersionRefused,
} from '../files.errors';
import { invalidMetadataText } from './tus-metadata';

/** The tus version this server speaks (Tus-Resumable, Tus-Version). */
export const TUS_VERSION = '1.0.0';
/** The tus extensions offered (Tus-Extension): not creation-defer-length, not concatenation. */
export const TUS_EXTENSIONS = 'creation,creation-with-upload,checksum,termination,expiration';
/** The only body a PATCH carries (tus 1.0 core). */
export const CHUNK_MEDIA_TYPE = 'application/offset+octet-stream';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OFFSET = /^(0|[1-9][0-9]{0,15})$/;

const header = (req: Request, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

/**
 * What tus 1.0 refuses before anything is locked, read or written, checked in the
 * protocol's order: a missing or unknown Tus-Resumable (412 with Tus-Version), a header
 * of an extension we do not offer (Upload-Defer-Length, Upload-Concat: 400 naming it,
 * with Tus-Extension; on PATCH also Upload-Length, which only a deferred length sends),
 * an upload id that cannot be one of ours (404), on PATCH a body
 * that is not application/offset+octet-stream (415) and a missing or malformed
 * Upload-Offset (400), on creation Upload-Metadata values that are not UTF-8 (400
 * naming the key). Undefined: @tus/server takes the request.
 */
export function tusPrecondition(req: Request): ProblemException | undefined {
  const version = header(req, 'tus-resumable');
  if (version !== TUS_VERSION) return tusVersionRefused(version, TUS_VERSION);
  for (const name of ['Upload-Concat', 'Upload-Defer-Length']) {
    if (header(req, name.toLowerCase()) !== undefined) return tusExtensionNotOffered(name, TUS_EXTENSIONS);
  }
  if (req.method === 'POST') {
    const bad = invalidMetadataText(header(req, 'upload-metadata'));
    return bad && invalidUploadFields([bad]);
  }
  const id = req.params['uploadId'];
  if (typeof id !== 'string' || !UUID.test(id)) return tusUploadNotFound();
  if (req.method !== 'PATCH') return undefined;
  // Upload-Length on a PATCH declares a deferred length: creation-defer-length, not offered
  // (every upload's length is known from its creation).
  if (header(req, 'upload-length') !== undefined) return tusExtensionNotOffered('Upload-Length', TUS_EXTENSIONS);
  const type = header(req, 'content-type');
  if (type !== CHUNK_MEDIA_TYPE) return tusContentTypeRefused(type, CHUNK_MEDIA_TYPE);
  const offset = header(req, 'upload-offset');
  if (offset === undefined) return tusBadHeader('Upload-Offset', 'Upload-Offset is required');
  if (!OFFSET.test(offset)) return tusBadHeader('Upload-Offset', 'Upload-Offset must be a non-negative integer');
  return undefined;
}
