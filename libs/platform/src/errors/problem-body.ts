import {
  ERROR_CODES,
  FieldProblem,
  PROBLEM_TYPE_BASE,
  ProblemDetails,
} from '@vault/contracts';
import { titleFor } from './problem.exception';

const CODE_BY_STATUS: Record<number, string> = {
  400: ERROR_CODES.validationFailed,
  401: ERROR_CODES.unauthorized,
  403: ERROR_CODES.forbidden,
  404: ERROR_CODES.notFound,
  409: ERROR_CODES.conflict,
  413: ERROR_CODES.payloadTooLarge,
  415: ERROR_CODES.unsupportedMediaType,
  429: ERROR_CODES.tooManyRequests,
  502: ERROR_CODES.badGateway,
  503: ERROR_CODES.serviceUnavailable,
};

/** Default machine code for a status when the thrower gave none. */
export function codeForStatus(status: number): string {
  return (
    CODE_BY_STATUS[status] ??
    (status >= 500 ? ERROR_CODES.internal : titleFor(status).toLowerCase().replace(/\W+/g, '_'))
  );
}

/** Builds the one problem+json body of the platform (used by services and the gateway). */
export function problemBody(
  status: number,
  code: string,
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
