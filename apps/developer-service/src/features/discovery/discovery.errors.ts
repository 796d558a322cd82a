import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** 404: no metadata for an application the tenant does not have. */
export const unknownApplication = () =>
  ProblemException.of(COMMON_ERRORS.notFound, 'The tenant has no such client application: no authorization server metadata.');
