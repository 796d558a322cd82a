import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Every problem the search routes raise of their own. */

export const invalidSearchCursor = () =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The cursor is not valid for this search.', {
    errors: [{ field: 'cursor', message: 'cursor must be the nextCursor of the same query and filters' }],
  });

export const fileNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'No such file on the record.');
