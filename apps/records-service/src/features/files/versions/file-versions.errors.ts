import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** An unknown version id, or one in the trash (thinned out by vault.fileVersions). */
export const versionNotFound = () => ProblemException.of(COMMON_ERRORS.notFound, 'The file has no such version.');
