import { DigestMismatchError, RateLimitedError, VaultApiError, VaultNetworkError } from '@vault/sdk';

/** The CLI's exit codes (apps/cli/README.md). */
export const EXIT = {
  ok: 0,
  /** Anything unexpected. */
  failure: 1,
  /** Wrong command, option or argument. */
  usage: 2,
  /** Not signed in, or the session can no longer be renewed (401, invalid_grant): run `vault login`. */
  auth: 3,
  /** 403: the role does not allow it. */
  forbidden: 4,
  /** 404: no such vault, record or file (or not visible to you). */
  notFound: 5,
  /** 409, 412, 422: conflicts, quotas, stale versions. */
  conflict: 6,
  /** Other 4xx: the platform refused the input. */
  invalid: 7,
  /** 429 beyond what the CLI waits for. */
  rateLimited: 8,
  /** 5xx, or no answer at all after the retries. */
  unavailable: 9,
  /** A downloaded file whose SHA-256 is not the platform's. */
  digest: 10,
  /** Interrupted (Ctrl-C); an upload or download goes on from where it stopped when run again. */
  interrupted: 130,
} as const;

/** A mistake in the command line. */
export class UsageError extends Error {}

/** Not signed in. */
export class NotSignedInError extends Error {}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof NotSignedInError) return EXIT.auth;
  if (error instanceof DigestMismatchError) return EXIT.digest;
  if (error instanceof VaultNetworkError) return EXIT.unavailable;
  if (error instanceof RateLimitedError) return EXIT.rateLimited;
  if (error instanceof VaultApiError) return statusExit(error.status, error.code);
  return EXIT.failure;
}

function statusExit(status: number, code: string): number {
  if (status === 401 || code === 'invalid_grant' || code === 'invalid_client') return EXIT.auth;
  if (status === 403) return EXIT.forbidden;
  if (status === 404) return EXIT.notFound;
  if (status === 409 || status === 412 || status === 422 || status === 428) return EXIT.conflict;
  if (status >= 500) return EXIT.unavailable;
  return EXIT.invalid;
}
