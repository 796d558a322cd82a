import type { HeaderObject } from '@nestjs/swagger';

const text = (description: string, schema: HeaderObject['schema'] = { type: 'string' }): HeaderObject => ({
  description,
  schema,
});

/**
 * Response headers of the platform, by name, as the OpenAPI documents describe them.
 * `documentHeaders()` (document.ts) puts the ones every answer can carry on every
 * response; routes name the others with `ApiHeaders(...)` (decorators.ts).
 */
export const RESPONSE_HEADERS = {
  'X-Request-Id': text(
    "Identifier of the request (the caller's own when it sent a valid one); it is in every log line and problem body of the request.",
  ),
  RateLimit: text(
    'Remaining budget of the tightest rate-limit policy that applied (draft-ietf-httpapi-ratelimit-headers): `"<policy>";r=<remaining>;t=<seconds to reset>`.',
  ),
  'RateLimit-Policy': text(
    'Every rate-limit policy that applied to the request: `"<policy>";q=<quota>;w=<window seconds>`, comma-separated.',
  ),
  'Retry-After': text('Seconds to wait before trying again.', { type: 'string', pattern: '^[0-9]+$' }),
  ETag: text(
    'Strong entity tag of the version shown; send it back in If-None-Match (304 when unchanged) or If-Match (412 when changed).',
  ),
  Location: text(
    'Where the created resource is: an absolute path on the same host (`/api/v1/...`), resolved against the request URL (RFC 9110, 10.2.2; docs/openapi.md, "URLs in answers").',
  ),
  'Idempotency-Replayed': text(
    '`true` when the answer is the stored answer of an earlier request with the same Idempotency-Key.',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
  'Repr-Digest': text('Digest of the whole file (RFC 9530): `sha-256=:<base64>:`.'),
  'Content-Digest': text('Digest of the bytes of this answer (RFC 9530): `sha-256=:<base64>:`.'),
  'Record-File-Url': text(
    'Download path of the record file the finished upload created, after the server URL like the paths of this document (docs/openapi.md, "URLs in answers").',
  ),
  'Tus-Resumable': text('tus protocol version of the server.', { type: 'string', enum: ['1.0.0'] }),
  'Tus-Version': text('tus protocol versions the server speaks.'),
  'Tus-Extension': text('tus extensions the server supports.'),
  'Tus-Max-Size': text("Largest upload, in bytes, the caller may create (the plan's upload cap when known).", {
    type: 'string',
    pattern: '^[0-9]+$',
  }),
  'Upload-Offset': text('Bytes of the upload the server holds.', { type: 'string', pattern: '^[0-9]+$' }),
  'Upload-Length': text('Declared size of the upload in bytes.', { type: 'string', pattern: '^[0-9]+$' }),
  'Upload-Expires': text('When an unfinished upload is removed (RFC 9110 HTTP-date).'),
  'Upload-Metadata': text('The metadata given at creation (tus: comma-separated `key base64value` pairs).'),
  'Cache-Control': text('Caching directives.'),
  'Last-Event-ID': text('Identifier of the last event delivered.'),
  'Content-Disposition': text('How the file is presented, with its name.'),
  'Content-Range': text('The byte range of a partial answer (206) or the size of the file (416).'),
  'Accept-Ranges': text('`bytes`: the download can be resumed with Range.'),
  'WWW-Authenticate': text('The bearer challenge (RFC 6750): why the token was refused.'),
  Deprecation: text(
    'The answer holds deprecated parts (RFC 9745): `@<unix seconds>`, since when; the operation says which (its fields marked `deprecated`).',
    { type: 'string', pattern: '^@[0-9]+$' },
  ),
  Sunset: text('When the deprecated parts of the answer stop being sent (RFC 8594, an HTTP-date).'),
} satisfies Record<string, HeaderObject>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** Headers every answer of the platform carries (or may carry: the rate-limit pair appears when a policy applied). */
export const EVERY_ANSWER_HEADERS: readonly ResponseHeaderName[] = ['X-Request-Id', 'RateLimit', 'RateLimit-Policy'];
