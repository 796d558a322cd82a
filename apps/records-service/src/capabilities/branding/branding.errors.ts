import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

export const unknownBrandCode = () =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The brand code is not configured.', {
    errors: [{ field: 'brandCode', message: 'brandCode is not a configured brand' }],
  });
