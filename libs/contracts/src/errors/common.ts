import { codesOf, ErrorTable } from './entry';

/**
 * Codes every module can send: the shared refusals, and the defaults the
 * platform's exception filter gives an error that carries no code of its own.
 */
export const COMMON_ERRORS = {
  validationFailed: {
    code: 'validation_failed',
    status: 400,
    meaning:
      'Invalid input: missing, unknown or malformed fields, malformed JSON, a body that is not an object or nests too deep, or a value that cannot be stored; `errors` names the fields.',
  },
  unauthorized: {
    code: 'unauthorized',
    status: 401,
    meaning: 'The access token is missing, malformed, expired, tampered, unsigned, for another audience or revoked.',
  },
  reauthenticationRequired: {
    code: 'reauthentication_required',
    status: 401,
    meaning:
      'The operation needs a recent sign-in: the access token comes from a sign-in older than the operation allows (or tells no sign-in time). Sign in again with the credentials (a refreshed token keeps its old sign-in time) and repeat; `WWW-Authenticate` names the allowed age (`max_age`, RFC 9470).',
  },
  forbidden: {
    code: 'forbidden',
    status: 403,
    meaning: 'The caller can see the resource but its role does not allow the operation.',
  },
  notFound: {
    code: 'not_found',
    status: 404,
    meaning: 'No such resource, or the caller has no role on it (existence is not revealed).',
  },
  methodNotAllowed: {
    code: 'method_not_allowed',
    status: 405,
    meaning: 'The resource does not accept this method.',
  },
  notAcceptable: {
    code: 'not_acceptable',
    status: 406,
    meaning: 'No representation matches the Accept header.',
  },
  conflict: {
    code: 'conflict',
    status: 409,
    meaning:
      'The request conflicts with an existing resource and no more specific code applies (for instance a duplicate the database refused).',
  },
  lengthRequired: {
    code: 'length_required',
    status: 411,
    meaning: 'The request needs a Content-Length header.',
  },
  preconditionFailed: {
    code: 'precondition_failed',
    status: 412,
    meaning: 'A precondition header of the request does not hold.',
  },
  preconditionRequired: {
    code: 'precondition_required',
    status: 428,
    meaning: 'The write needs an If-Match header naming the version it changes (the service runs with REQUIRE_IF_MATCH=true).',
  },
  payloadTooLarge: {
    code: 'payload_too_large',
    status: 413,
    meaning:
      "The body is larger than allowed: the 1 MiB limit of JSON and form bodies (gateway and modules alike), or the upload limit of the vault's plan.",
  },
  unsupportedMediaType: {
    code: 'unsupported_media_type',
    status: 415,
    meaning: 'The content type (or its charset or encoding) is not accepted for this operation.',
  },
  rangeNotSatisfiable: {
    code: 'range_not_satisfiable',
    status: 416,
    meaning: 'The requested byte range lies beyond the end of the content.',
  },
  idempotencyKeyInFlight: {
    code: 'idempotency_key_in_flight',
    status: 409,
    meaning: 'A request with this Idempotency-Key (same caller) is still being processed; retry after it has finished.',
  },
  unprocessableContent: {
    code: 'unprocessable_content',
    status: 422,
    meaning: 'The request is well formed but cannot be processed.',
  },
  idempotencyKeyReused: {
    code: 'idempotency_key_reused',
    status: 422,
    meaning:
      'This Idempotency-Key was already used by the same caller, within 24 hours, for a different request (method, path or body); use a new key.',
  },
  tooManyRequests: {
    code: 'too_many_requests',
    status: 429,
    meaning: 'Too many requests, failed sign-ins, codes or invitations; `Retry-After` says when to retry.',
  },
  requestError: {
    code: 'request_error',
    status: 400,
    meaning: 'A client error with any other 4xx status (sent with that status) and no more specific code.',
  },
  internal: {
    code: 'internal_error',
    status: 500,
    meaning: 'An unexpected failure; the body carries no internals, the request id links it to the logs.',
  },
  serviceUnavailable: {
    code: 'service_unavailable',
    status: 503,
    meaning: 'A module is not ready, or a message or upload could not be completed right now; retry later.',
  },
} as const satisfies ErrorTable;

export const COMMON_ERROR_CODES = codesOf(COMMON_ERRORS);
