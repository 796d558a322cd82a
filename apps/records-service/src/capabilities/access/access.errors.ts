import { ProblemException } from '@vault/platform';

export const vaultNotFound = () => ProblemException.notFound('The vault does not exist.');
export const recordNotFound = () => ProblemException.notFound('The record does not exist.');
