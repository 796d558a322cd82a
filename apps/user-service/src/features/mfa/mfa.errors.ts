import { COMMON_ERRORS, USER_ERRORS } from '@vault/contracts';
import type { MfaType } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** The one answer for a wrong, expired, used or exhausted code (no oracle). */
export const invalidMfaCode = () =>
  ProblemException.of(USER_ERRORS.invalidMfaCode, 'The code is wrong, expired or already used.', {
    errors: [{ field: 'code', message: 'code is wrong, expired or already used' }],
  });

export const noMfaDestination = (type: MfaType) =>
  ProblemException.of(
    USER_ERRORS.noMfaDestination,
    type === 'email' ? 'The account has no email address.' : 'The account has no mobile phone number.',
  );

/** A code was sent less than MFA_RESEND_INTERVAL_SECONDS ago; `retryAfterSeconds`: until that interval has passed. */
export const codeSentMomentsAgo = (retryAfterSeconds: number) =>
  ProblemException.of(COMMON_ERRORS.tooManyRequests, 'A code was sent moments ago; retry later.', {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });

export const codeUndelivered = () =>
  ProblemException.of(COMMON_ERRORS.serviceUnavailable, 'The code could not be delivered; retry later.');
