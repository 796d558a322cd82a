import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '../errors/problem.exception';

/** The protection space named in every bearer challenge of the platform (RFC 6750 §3). */
export const BEARER_REALM = 'vault';

/** The RFC 6750 error codes a resource server of the platform sends. */
export type BearerError = 'invalid_request' | 'invalid_token';

/**
 * The `WWW-Authenticate` value of a 401 on a bearer-protected route (RFC 6750 §3):
 * `Bearer realm="vault"` alone when the request carried no bearer credentials (the
 * RFC asks for no error code then), with `error` and `error_description` when it
 * carried one that failed. The description is limited to the characters RFC 6750
 * allows in it (no `"` nor `\`).
 */
export function bearerChallenge(error?: BearerError, description?: string): string {
  let value = `Bearer realm="${BEARER_REALM}"`;
  if (error) value += `, error="${error}"`;
  if (error && description) value += `, error_description="${description.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '')}"`;
  return value;
}

/** 401 `unauthorized` with the bearer challenge: the one answer of a refused access token. */
export function bearerUnauthorized(detail = 'A valid access token is required.', error?: BearerError): ProblemException {
  return ProblemException.of(COMMON_ERRORS.unauthorized, detail, {
    headers: { 'WWW-Authenticate': bearerChallenge(error, error ? detail : undefined) },
  });
}

/**
 * The 401 for a request's Authorization header that held no usable bearer token: no
 * header or another scheme gets the plain challenge (no error, RFC 6750 §3.1), a
 * `Bearer` header that is malformed (no token, or more than one) `invalid_request`.
 */
export function missingBearerToken(authorization: string | undefined): ProblemException {
  const bearerLike = authorization !== undefined && /^\s*bearer(\s|$)/i.test(authorization);
  return bearerUnauthorized('A valid access token is required.', bearerLike ? 'invalid_request' : undefined);
}
