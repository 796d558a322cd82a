import { COMMON_ERRORS, DEVELOPER_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** The one answer to every credential failure, so none of them reveals which part was wrong. */
export const invalidCredentials = () =>
  ProblemException.of(DEVELOPER_ERRORS.invalidCredentials, 'The client credentials or the user credentials are not valid.');

/** A throttle limit refused the attempt; `retryAfterSeconds`: until the limit lets one through. */
export const tooManySignInAttempts = (retryAfterSeconds: number) =>
  ProblemException.of(COMMON_ERRORS.tooManyRequests, 'Too many failed sign-in attempts; retry later.', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
