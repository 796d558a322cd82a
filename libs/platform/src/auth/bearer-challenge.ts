import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '../errors/problem.exception';

/** The protection space named in every bearer challenge of the platform (RFC 6750 §3). */
export const BEARER_REALM = 'vault';

/**
 * The error codes a resource server of the platform sends: RFC 6750's, and RFC 9470's
 * `insufficient_user_authentication` (the sign-in is too old for the operation).
 */
export type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_user_authentication';

/**
 * The `WWW-Authenticate` value of a 401 on a bearer-protected route (RFC 6750 §3):
 * `Bearer realm="vault"` alone when the request carried no bearer credentials (the
 * RFC asks for no error code then), with `error` and `error_description` when it
 * carried one that failed. The description is limited to the characters RFC 6750
 * allows in it (no `"` nor `\`).
 */
export function bearerChallenge(error?: BearerError, description?: string, maxAgeSeconds?: number): string {
  let value = `Bearer realm="${BEARER_REALM}"`;
  if (error) value += `, error="${error}"`;
  if (error && description) value += `, error_description="${description.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '')}"`;
  if (error && maxAgeSeconds !== undefined) value += `, max_age=${Math.floor(maxAgeSeconds)}`;
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

/**
 * 401 `reauthentication_required` for an operation that needs a sign-in at most
 * `maxAgeSeconds` old (RFC 9470, OAuth 2.0 Step-Up Authentication Challenge): the token's
 * `auth_time` is older, or the token has none. The challenge names the allowed age
 * (`max_age`); the client signs in again with the credentials and repeats the request.
 */
export function reauthenticationRequired(maxAgeSeconds: number): ProblemException {
  const detail = `This operation needs a sign-in within the last ${Math.floor(maxAgeSeconds)} seconds: sign in again and repeat it.`;
  return ProblemException.of(COMMON_ERRORS.reauthenticationRequired, detail, {
    headers: { 'WWW-Authenticate': bearerChallenge('insufficient_user_authentication', detail, maxAgeSeconds) },
  });
}

/** Whether `principal` signed in at most `maxAgeSeconds` before `now` (ms); false without a sign-in time. */
export function signedInWithin(principal: { authTime?: number }, maxAgeSeconds: number, now = Date.now()): boolean {
  return principal.authTime !== undefined && now / 1000 - principal.authTime <= maxAgeSeconds;
}
