import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiResponse } from '@nestjs/swagger';
import { ApiProblems, headersOf } from '@vault/platform/openapi';

/** The download's answers: the bytes (any stored media type), a range of them, 304, 416. */
export const ApiFileDownload = () => {
  const bytes = { '*/*': { schema: { description: 'The file bytes, with the media type stored at upload.' } } };
  const headers = headersOf(['ETag', 'Repr-Digest', 'Accept-Ranges', 'Content-Disposition', 'Cache-Control']);
  return applyDecorators(
    ApiHeader({ name: 'Range', required: false, description: 'One byte range (`bytes=<start>-<end>`): 206 with that range.' }),
    ApiHeader({
      name: 'If-Range',
      required: false,
      description: 'The ETag the range was read at; another version sends it whole.',
    }),
    ApiHeader({ name: 'If-None-Match', required: false, description: 'The ETag the client holds: 304 when unchanged.' }),
    ApiOkResponse({ description: 'The file, with its stored media type.', content: bytes, headers }),
    ApiResponse({
      status: 206,
      description: 'The range asked for.',
      content: bytes,
      headers: { ...headers, ...headersOf(['Content-Range'], ['Content-Range']) },
    }),
    ApiResponse({ status: 304, description: 'Not Modified: If-None-Match names the stored version.', headers }),
    ApiProblems([416, '`range_not_satisfiable`: the range lies outside the file; Content-Range names its size.']),
  );
};
