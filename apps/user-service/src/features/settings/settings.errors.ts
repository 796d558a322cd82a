import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

export const settingsNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The account has no settings.');
