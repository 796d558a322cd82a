import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Every problem RoleGuard and AccessService raise: unknown or unseen is a 404, too weak a role a 403. */

export const vaultNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The vault does not exist.');
export const recordNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The record does not exist.');

export const roleTooWeak = () => ProblemException.of(COMMON_ERRORS.forbidden, 'Your role does not allow this operation.');

/** A route whose declared rule RoleGuard cannot apply. */
export const operationUnavailable = () => ProblemException.of(COMMON_ERRORS.forbidden, 'This operation is not available.');
