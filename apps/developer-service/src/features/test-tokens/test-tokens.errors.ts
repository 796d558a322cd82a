import { COMMON_ERRORS, DEVELOPER_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

export const applicationNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'No such application for this tenant.');

export const notInTestMode = () =>
  ProblemException.of(COMMON_ERRORS.forbidden, 'Test tokens are only issued to applications in test mode.');

export const noRedirectUri = () => ProblemException.of(DEVELOPER_ERRORS.noRedirectUri, 'The application has no redirect URI.');
