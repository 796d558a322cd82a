import { COLLABORATOR_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

export const accountNotFound = () =>
  ProblemException.of(COLLABORATOR_ERRORS.accountNotFound, 'No active account of your organisation has this username or openId.');
