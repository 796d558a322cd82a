import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Every problem the activity-log route raises of its own. */

export const invalidCursor = (message: string) =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The cursor is not valid for this request.', {
    errors: [{ field: 'cursor', message }],
  });

export const pageAndCursor = () =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'Send either page or cursor.', {
    errors: [{ field: 'cursor', message: 'cursor and page cannot be sent together' }],
  });
