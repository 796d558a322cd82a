import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** The identity sent its hourly share of invitations; `retryAfterSeconds`: until the oldest of them is an hour old. */
export const tooManyInvitations = (retryAfterSeconds: number) =>
  ProblemException.of(COMMON_ERRORS.tooManyRequests, 'Too many invitations sent; retry later.', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });

/** The one answer when the invitation mail cannot be delivered (the invitation is dropped). */
export const invitationUndelivered = () =>
  ProblemException.of(COMMON_ERRORS.serviceUnavailable, 'The invitation could not be delivered; retry later.');
