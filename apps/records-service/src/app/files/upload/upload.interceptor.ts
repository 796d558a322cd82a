import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { ERROR_CODES, FILE_CHECKSUM_HEADER } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import type { Response } from 'express';
import multer, { MulterError } from 'multer';
import type { Observable } from 'rxjs';
import type { RequestWithAccess } from '../../access/role.guard';
import { FileBytesService } from '../file-bytes.service';
import { FilesService, payloadTooLarge, ReceivedFile, storageQuotaExceeded, UploadLimits } from '../files.service';
import { ReceivedMulterFile, RecordFileStorageEngine } from './record-file-storage-engine';
import { parseChecksumHeader, parseUploadMetadata } from './upload-metadata';

/** Multipart bytes around the file part at most (boundaries, part headers, metadata fields). */
export const MULTIPART_OVERHEAD_BYTES = 256 * 1024;

/** Buffer sizes of the multipart parser and of the file stream (fewer, larger chunks). */
const STREAM_BUFFER_BYTES = 512 * 1024;

/** Limits of the non-file parts: a few short metadata fields and exactly one file. */
const PART_LIMITS = { files: 1, fields: 12, parts: 13, fieldSize: 8 * 1024, fieldNameSize: 100, headerPairs: 50 };

export type UploadRequest = RequestWithAccess & {
  expectedSha256?: string;
  /** The multipart fields as they were when the file part began (JSON of each value). */
  fieldsBeforeFile?: Record<string, string>;
  file?: ReceivedMulterFile;
};

const fieldSnapshot = (body: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(body).map(([k, v]) => [k, JSON.stringify(v)]));

/**
 * Fields sent after the file part are never read as metadata (the file is stored by
 * then): they are refused, naming each one, rather than silently ignored.
 */
function fieldsAfterFile(req: UploadRequest): string[] {
  const before = req.fieldsBeforeFile;
  if (!before) return [];
  const now = fieldSnapshot((req.body ?? {}) as Record<string, unknown>);
  return Object.keys(now).filter((k) => before[k] !== now[k]);
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The part's declared media type without parameters, or application/octet-stream. */
export function sanitizeMediaType(declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0].trim().toLowerCase();
  return MEDIA_TYPE.test(type) ? type : 'application/octet-stream';
}

/**
 * Receives an upload after RoleGuard resolved the vault and record: refuses what the
 * headers already show to be too large, then runs multer with a storage engine that
 * validates the metadata, streams the `file` part to storage within the plan limits
 * and computes its SHA-256; fields after the file part are refused (400, bytes removed).
 * The handler then commits the metadata row.
 */
@Injectable()
export class UploadInterceptor implements NestInterceptor {
  constructor(
    private readonly files: FilesService,
    private readonly bytes: FileBytesService,
  ) {}

  async intercept(ctx: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const req = ctx.switchToHttp().getRequest<UploadRequest>();
    const res = ctx.switchToHttp().getResponse<Response>();
    if (!req.is('multipart/form-data')) {
      throw new ProblemException(
        415,
        ERROR_CODES.unsupportedMediaType,
        'An upload is multipart/form-data with the bytes in the part "file".',
      );
    }
    req.expectedSha256 = parseChecksumHeader(req.headers[FILE_CHECKSUM_HEADER]);
    const access = req.vaultAccess;
    if (!access) throw new Error('RoleGuard did not run for this route');
    const limits = await this.files.uploadLimits(access.vault.id);
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limits.maxUploadBytes + MULTIPART_OVERHEAD_BYTES) throw payloadTooLarge(limits.maxUploadBytes);
    if (declared > limits.quotaRemainingBytes + MULTIPART_OVERHEAD_BYTES) throw storageQuotaExceeded();

    const engine = new RecordFileStorageEngine(
      (r, file) => this.receive(r as UploadRequest, file, limits),
      (key) => this.bytes.discard(key),
    );
    // multer 2 passes highWaterMark and fileHwm to busboy; its type declarations lack them
    const options: multer.Options & { highWaterMark: number; fileHwm: number } = {
      storage: engine,
      limits: PART_LIMITS,
      highWaterMark: STREAM_BUFFER_BYTES,
      fileHwm: STREAM_BUFFER_BYTES,
    };
    const upload = multer(options).single('file');
    await new Promise<void>((resolve, reject) =>
      upload(req, res, (err: unknown) => (err ? reject(toProblem(err)) : resolve())),
    );
    const late = fieldsAfterFile(req);
    if (late.length > 0) {
      if (req.file) await this.bytes.discard(req.file.stored.storageKey);
      throw ProblemException.badRequest(
        'Metadata fields go before the file part.',
        late.map((field) => ({ field, message: `${field} is sent after the file part; send it before the file or in the query` })),
      );
    }
    return next.handle();
  }

  private async receive(req: UploadRequest, file: Express.Multer.File, limits: UploadLimits): Promise<ReceivedFile> {
    req.fieldsBeforeFile = fieldSnapshot((req.body ?? {}) as Record<string, unknown>);
    const metadata = parseUploadMetadata(req.query as Record<string, unknown>, (req.body ?? {}) as Record<string, unknown>);
    const access = req.vaultAccess;
    if (!access) throw new Error('RoleGuard did not run for this route');
    await this.files.assertNameFree(access, metadata.fileName);
    const limit = Math.min(limits.maxUploadBytes, limits.quotaRemainingBytes);
    const overLimit = () =>
      limit === limits.maxUploadBytes ? payloadTooLarge(limits.maxUploadBytes) : storageQuotaExceeded();
    const stored = await this.bytes.store(file.stream, limit, overLimit);
    return { metadata, stored, mediaType: sanitizeMediaType(file.mimetype) };
  }
}

/** multer and busboy failures as 400 problems; problems raised by the engine pass through. */
function toProblem(err: unknown): unknown {
  if (err instanceof ProblemException) return err;
  if (err instanceof MulterError) {
    const detail =
      err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT'
        ? 'An upload carries exactly one file, in the part "file".'
        : `The multipart body is refused: ${err.message}.`;
    return ProblemException.badRequest(detail, err.field ? [{ field: err.field, message: err.message }] : undefined);
  }
  if (err instanceof Error && /multipart|boundary|Unexpected end of form|Malformed/i.test(err.message)) {
    return ProblemException.badRequest(`The multipart body is malformed: ${err.message}.`);
  }
  return err;
}
