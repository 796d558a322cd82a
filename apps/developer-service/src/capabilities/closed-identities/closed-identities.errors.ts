import { DEVELOPER_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** 403 account_deleted: the identity deleted its account; no token is issued to it. */
export const accountDeleted = () =>
  ProblemException.of(DEVELOPER_ERRORS.accountDeleted, 'The account of this identity was deleted: it can no longer sign in.');
