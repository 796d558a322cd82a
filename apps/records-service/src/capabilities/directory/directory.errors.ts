import { COLLABORATOR_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';

export const accountNotFound = () =>
  new ProblemException(
    404,
    COLLABORATOR_ERROR_CODES.accountNotFound,
    'No active account of your organisation has this username or openId.',
  );
