import type { Request, Response } from 'express';
import multer, { MulterError, StorageEngine } from 'multer';
import { ProblemException } from '@vault/platform/errors';
import { multipartMalformed, multipartRefused, oneFilePart } from '../files.errors';

/** Multipart bytes around the file part at most (boundaries, part headers, metadata fields). */
export const MULTIPART_OVERHEAD_BYTES = 256 * 1024;

/** Buffer sizes of the multipart parser and of the file stream (fewer, larger chunks). */
const STREAM_BUFFER_BYTES = 512 * 1024;

/** Limits of the non-file parts: a few short metadata fields and exactly one file. */
const PART_LIMITS = { files: 1, fields: 12, parts: 13, fieldSize: 8 * 1024, fieldNameSize: 100, headerPairs: 50 };

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The part's declared media type without parameters, or application/octet-stream. */
export function sanitizeMediaType(declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0].trim().toLowerCase();
  return MEDIA_TYPE.test(type) ? type : 'application/octet-stream';
}

/** The multipart fields read so far, each value as JSON (to tell later changes apart). */
export function fieldSnapshot(req: Request): Record<string, string> {
  return Object.fromEntries(Object.entries(formFields(req)).map(([k, v]) => [k, JSON.stringify(v)]));
}

/** The multipart fields read so far. */
export const formFields = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/**
 * Reads a multipart/form-data body with exactly one part "file", which `engine`
 * stores; the other parts become `req.body`. multer and busboy failures become 400
 * problems; problems raised by the engine pass through.
 */
export async function readMultipart(req: Request, res: Response, engine: StorageEngine): Promise<void> {
  // multer 2 passes highWaterMark and fileHwm to busboy; its type declarations lack them
  const options: multer.Options & { highWaterMark: number; fileHwm: number } = {
    storage: engine,
    limits: PART_LIMITS,
    highWaterMark: STREAM_BUFFER_BYTES,
    fileHwm: STREAM_BUFFER_BYTES,
  };
  const upload = multer(options).single('file');
  await new Promise<void>((resolve, reject) => upload(req, res, (err: unknown) => (err ? reject(toProblem(err)) : resolve())));
}

function toProblem(err: unknown): unknown {
  if (err instanceof ProblemException) return err;
  if (err instanceof MulterError) {
    const field = err.field ? { field: err.field, message: err.message } : undefined;
    return err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT'
      ? oneFilePart(field)
      : multipartRefused(err.message, field);
  }
  if (err instanceof Error && /multipart|boundary|Unexpected end of form|Malformed/i.test(err.message)) {
    return multipartMalformed(err.message);
  }
  return err;
}
