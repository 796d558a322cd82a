import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiProduces, ApiResponse } from '@nestjs/swagger';
import { COMMON_ERRORS, FILE_ERRORS } from '@vault/contracts';
import { ApiProblems, headersOf } from '@vault/platform/openapi';

/** The `.age` export's answers: the whole file, one range of it, and the problems. */
export const ApiAgeExport = () => {
  const bytes = { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } };
  const headers = {
    ...headersOf(['Content-Disposition', 'Cache-Control']),
    ETag: {
      description:
        'Strong entity tag of the `.age` file, when its bytes are the same at each request: send it back in If-Range to resume.',
      schema: { type: 'string' },
    },
    'Accept-Ranges': {
      description:
        '`bytes`: the export can be resumed with Range; `none`: it is sent whole only (its bytes differ at each request).',
      required: true,
      schema: { type: 'string', enum: ['bytes', 'none'] },
    },
  };
  return applyDecorators(
    ApiProduces('application/octet-stream'),
    ApiHeader({
      name: 'Range',
      required: false,
      description:
        'One byte range of the `.age` file (`bytes=<start>-<end>`): 206 with that range, when the answer has `Accept-Ranges: bytes`. Each answer that sends bytes is recorded as an export.',
    }),
    ApiHeader({
      name: 'If-Range',
      required: false,
      description:
        'The ETag the earlier bytes came with; another one (a new version of the file, its envelope rewrapped by a move) sends the file whole.',
    }),
    ApiOkResponse({
      description:
        'The `.age` file. `Cache-Control: no-store`. ETag and `Accept-Ranges: bytes` when its bytes are the same at each request (its envelope is stored for this vault); `Accept-Ranges: none` and no ETag for a file sealed to another vault, rewrapped for each export.',
      content: bytes,
      headers,
    }),
    ApiResponse({
      status: 206,
      description: 'The range asked for.',
      content: bytes,
      headers: { ...headers, ETag: { ...headers.ETag, required: true }, ...headersOf(['Content-Range'], ['Content-Range']) },
    }),
    ApiProblems(
      401,
      403,
      404,
      [409, '`conflict`: the file is not encrypted yet (stored before encryption at rest).'],
      [
        416,
        '`range_not_satisfiable`: the range lies beyond the end of the `.age` file; `Content-Range: bytes */<size>` names its size.',
      ],
      FILE_ERRORS.fileDamaged,
      COMMON_ERRORS.serviceUnavailable,
    ),
  );
};
