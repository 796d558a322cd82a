/** RFC 9457 problem details, the one error body of every service. */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId?: string;
  errors?: FieldProblem[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
export const PROBLEM_TYPE_BASE = 'https://docs.vault.dev/problems/';

/** Stable machine codes shared by services and clients. */
export const ERROR_CODES = {
  validationFailed: 'validation_failed',
  unauthorized: 'unauthorized',
  invalidCredentials: 'invalid_credentials',
  forbidden: 'forbidden',
  notFound: 'not_found',
  conflict: 'conflict',
  tooManyRequests: 'too_many_requests',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  httpsRequired: 'https_required',
  unknownHost: 'unknown_host',
  badGateway: 'bad_gateway',
  serviceUnavailable: 'service_unavailable',
  gatewayTimeout: 'gateway_timeout',
  internal: 'internal_error',
} as const;
