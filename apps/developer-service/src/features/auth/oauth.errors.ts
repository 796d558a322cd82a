import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { OAuthErrorCode } from '@vault/contracts';
import type { Response } from 'express';

/**
 * A refusal of `POST .../oauth/token`, answered as RFC 6749 §5.2 prescribes
 * (`{error, error_description}`), not as a problem body: OAuth client libraries read
 * `error` to decide what to do (sign in again on invalid_grant, fix their configuration
 * on invalid_client), and they do not know RFC 9457.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${error}: ${description}`);
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description);

/**
 * Client authentication failed: 401 with a Basic challenge when the client authenticated
 * with the Authorization header (RFC 6749 §5.2 requires it), 400 otherwise.
 */
export const invalidClient = (viaBasic: boolean) =>
  viaBasic
    ? new OAuthError('invalid_client', 'Client authentication failed.', 401, {
        'WWW-Authenticate': 'Basic realm="vault", charset="UTF-8"',
      })
    : new OAuthError('invalid_client', 'Client authentication failed.');

/** The same answer for a refresh token that is unknown, another application's, expired, revoked or reused. */
export const invalidRefreshToken = () => new OAuthError('invalid_grant', 'The refresh token is not valid: sign in again.');

export const invalidUserCredentials = () => new OAuthError('invalid_grant', 'The user credentials are not valid.');

export const accountDeletedGrant = () =>
  new OAuthError('invalid_grant', 'The account of this identity was deleted: it can no longer sign in.');

export const unsupportedGrantType = () =>
  new OAuthError('unsupported_grant_type', 'grant_type must be password or refresh_token.');

export const invalidScope = () => new OAuthError('invalid_scope', 'Only the scope vault can be granted.');

/** The sign-in throttle refused a password grant: 429 with Retry-After, `slow_down` (RFC 8628's token-endpoint code). */
export const slowDown = (retryAfter: string) =>
  new OAuthError('slow_down', 'Too many failed sign-in attempts; retry later.', 429, { 'Retry-After': retryAfter });

/** Renders OAuthError as the RFC 6749 error body, never cached. */
@Catch(OAuthError)
export class OAuthErrorFilter implements ExceptionFilter {
  catch(err: OAuthError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    res
      .status(err.status)
      .set({ ...err.headers, 'Cache-Control': 'no-store', Pragma: 'no-cache' })
      .json({ error: err.error, error_description: err.description });
  }
}
