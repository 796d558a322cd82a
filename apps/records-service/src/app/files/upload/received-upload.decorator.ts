import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { FILE_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import type { ReceivedFile } from '../files.service';
import { parseUploadMetadata } from './upload-metadata';
import type { UploadRequest } from './upload.interceptor';

export interface ReceivedUpload {
  file: ReceivedFile;
  expectedSha256?: string;
}

/**
 * The file UploadInterceptor stored for this request with the client's checksum.
 * Without a `file` part the metadata is still checked (its problems come first),
 * then the request is a 400 missing_file_part.
 */
export const ReceivedUpload = createParamDecorator((_: unknown, ctx: ExecutionContext): ReceivedUpload => {
  const req = ctx.switchToHttp().getRequest<UploadRequest>();
  if (!req.file) {
    parseUploadMetadata(req.query as Record<string, unknown>, (req.body ?? {}) as Record<string, unknown>);
    throw new ProblemException(400, FILE_ERROR_CODES.missingFilePart, 'The upload has no file part named "file".', [
      { field: 'file', message: 'file is required' },
    ]);
  }
  const { metadata, stored, mediaType } = req.file;
  return { file: { metadata, stored, mediaType }, expectedSha256: req.expectedSha256 };
});
