import { CHANGE_FEED_ERRORS, COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Every problem the change-feed routes raise of their own. */

export const cursorExpired = () =>
  ProblemException.of(
    CHANGE_FEED_ERRORS.cursorExpired,
    'Events after this cursor are past the retention of the change feed: resync the vault, then read the feed again without a cursor.',
  );

export const invalidCursor = (field: string) =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The cursor is not valid.', {
    errors: [{ field, message: `${field} must be a nextCursor or an event id of this feed` }],
  });

export const invalidLimit = () =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The limit is not valid.', {
    errors: [{ field: 'limit', message: 'limit must be an integer from 1 to 500' }],
  });

export const givenMoreThanOnce = (field: string) =>
  ProblemException.of(COMMON_ERRORS.validationFailed, `${field} is given more than once.`, {
    errors: [{ field, message: `${field} must be given once` }],
  });

export const tooManyStreams = (cap: 'caller' | 'tenant', max: number, retryAfterSeconds: number) =>
  ProblemException.of(
    COMMON_ERRORS.tooManyRequests,
    cap === 'caller'
      ? `At most ${max} live event streams may be open at once per caller; close one or retry later.`
      : `The tenant's callers hold the ${max} live event streams it may have open at once; retry later.`,
    { headers: { 'Retry-After': String(retryAfterSeconds) } },
  );
