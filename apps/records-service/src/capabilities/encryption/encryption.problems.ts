import { COMMON_ERRORS, FILE_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import { KeyServiceUnavailableError, SealedObjectError, VaultKeyDestroyedError } from './encryption.errors';

/** Seconds a client is told to wait when the key service does not answer. */
const KEY_SERVICE_RETRY_SECONDS = 5;

/**
 * The problem answer of an encryption failure met before a download's first byte, or
 * the error itself when it is none of them. Never a 500 for a damaged object.
 */
export function encryptionProblem(err: unknown): unknown {
  if (err instanceof SealedObjectError) {
    return ProblemException.of(
      FILE_ERRORS.fileDamaged,
      'The stored bytes of this file do not authenticate (changed or cut in storage): none is served.',
    );
  }
  if (err instanceof KeyServiceUnavailableError) {
    return ProblemException.of(COMMON_ERRORS.serviceUnavailable, 'The key service does not answer; retry later.', {
      headers: { 'Retry-After': String(KEY_SERVICE_RETRY_SECONDS) },
    });
  }
  if (err instanceof VaultKeyDestroyedError) {
    return ProblemException.of(FILE_ERRORS.fileDamaged, "The vault's key was destroyed: its files cannot be read.");
  }
  return err;
}
