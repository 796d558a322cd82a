import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_BASE } from '@vault/contracts';
import type { SchemaObject } from '@nestjs/swagger';

/** Name of the bearer security scheme in every document. */
export const BEARER_SCHEME = 'bearer';

/** Component name of the problem body. */
export const PROBLEM_SCHEMA_NAME = 'Problem';

/** The one error body of the platform (RFC 9457; libs/contracts/src/problem.ts). */
export const PROBLEM_SCHEMA: SchemaObject = {
  type: 'object',
  description: 'RFC 9457 problem details: the body of every error answer (docs/errors.md).',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', format: 'uri', description: `\`${PROBLEM_TYPE_BASE}<code>\`.` },
    title: { type: 'string', description: 'The HTTP reason phrase of the status.' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'What went wrong, for a person.' },
    code: { type: 'string', description: 'Stable machine code (docs/errors.md).' },
    requestId: { type: 'string', description: 'The X-Request-Id of the request.' },
    errors: {
      type: 'array',
      description: 'The fields that failed validation (400 validation_failed).',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

export const PROBLEM_MEDIA_TYPE = PROBLEM_CONTENT_TYPE;
