import { ERROR_CODES, ErrorCode, FieldProblem, PROBLEM_TYPE_BASE, ProblemDetails } from '@vault/contracts';
import { titleFor } from './problem.exception';

const CODE_BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: ERROR_CODES.validationFailed,
  401: ERROR_CODES.unauthorized,
  403: ERROR_CODES.forbidden,
  404: ERROR_CODES.notFound,
  405: ERROR_CODES.methodNotAllowed,
  406: ERROR_CODES.notAcceptable,
  409: ERROR_CODES.conflict,
  411: ERROR_CODES.lengthRequired,
  412: ERROR_CODES.preconditionFailed,
  413: ERROR_CODES.payloadTooLarge,
  415: ERROR_CODES.unsupportedMediaType,
  416: ERROR_CODES.rangeNotSatisfiable,
  422: ERROR_CODES.unprocessableContent,
  428: ERROR_CODES.preconditionRequired,
  429: ERROR_CODES.tooManyRequests,
  502: ERROR_CODES.badGateway,
  503: ERROR_CODES.serviceUnavailable,
};

/** Default machine code for a status when the thrower gave none. */
export function codeForStatus(status: number): ErrorCode {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? ERROR_CODES.internal : ERROR_CODES.requestError);
}

/** Builds the one problem+json body of the platform (used by services and the gateway). */
export function problemBody(
  status: number,
  code: ErrorCode,
  detail: string,
  requestId?: string,
  errors?: FieldProblem[],
): ProblemDetails {
  return {
    type: `${PROBLEM_TYPE_BASE}${code}`,
    title: titleFor(status),
    status,
    detail,
    code,
    ...(requestId ? { requestId } : {}),
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}
