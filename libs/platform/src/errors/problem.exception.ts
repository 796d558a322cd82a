import { HttpException } from '@nestjs/common';
import { COMMON_ERRORS, ErrorCode, ErrorEntry, FieldProblem } from '@vault/contracts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export function titleFor(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Server Error' : 'Request Error');
}

/**
 * An error that renders as a problem+json body with a stable machine code;
 * only codes of the catalogue in @vault/contracts are accepted.
 */
export class ProblemException extends HttpException {
  /** Private: every problem is made from a catalogue entry (`of`), so its status is the catalogue's. */
  private constructor(
    status: number,
    readonly code: ErrorCode,
    detail: string,
    readonly errors?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail, status);
  }

  /**
   * The problem of one catalogue entry: its code, sent with the status the catalogue
   * gives it (written once, in libs/contracts), and `detail` for this occurrence
   * (the entry's meaning when omitted).
   */
  static of(
    entry: ErrorEntry & { readonly code: ErrorCode },
    detail: string = entry.meaning,
    extra: { errors?: FieldProblem[]; headers?: Record<string, string> } = {},
  ): ProblemException {
    return new ProblemException(entry.status, entry.code, detail, extra.errors, extra.headers);
  }

  static badRequest(detail: string, errors?: FieldProblem[]) {
    return ProblemException.of(COMMON_ERRORS.validationFailed, detail, { errors });
  }
  static unauthorized(detail = 'A valid access token is required.') {
    return ProblemException.of(COMMON_ERRORS.unauthorized, detail);
  }
  static forbidden(detail = 'Your role does not allow this operation.') {
    return ProblemException.of(COMMON_ERRORS.forbidden, detail);
  }
  static notFound(detail = 'The resource does not exist.') {
    return ProblemException.of(COMMON_ERRORS.notFound, detail);
  }
  static tooManyRequests(retryAfterSeconds: number, detail = 'Too many requests; retry later.') {
    return ProblemException.of(COMMON_ERRORS.tooManyRequests, detail, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}
