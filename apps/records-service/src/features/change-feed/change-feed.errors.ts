import { CHANGE_FEED_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';

export const cursorExpired = () =>
  new ProblemException(
    410,
    CHANGE_FEED_ERROR_CODES.cursorExpired,
    'Events after this cursor are past the retention of the change feed: resync the vault, then read the feed again without a cursor.',
  );
