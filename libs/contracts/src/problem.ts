import { COMMON_ERROR_CODES, DEVELOPER_ERROR_CODES, GATEWAY_ERROR_CODES } from './errors';

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

/**
 * Stable machine codes shared by services and clients: the common and gateway
 * codes of the catalogue (see ./errors), and the developer module's credential refusal.
 */
export const ERROR_CODES = {
  ...COMMON_ERROR_CODES,
  ...GATEWAY_ERROR_CODES,
  invalidCredentials: DEVELOPER_ERROR_CODES.invalidCredentials,
} as const;
