import { COMMON_ERRORS, FieldProblem } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

export const unknownRecordType = (errors: FieldProblem[]) =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The record type or subtype is not known.', { errors });
