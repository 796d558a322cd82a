/**
 * Failures of encrypted file bodies and of the keys behind them. Plain errors here; the
 * storage and HTTP layers map them to problem answers (never a 5xx for a damaged object,
 * 503 with Retry-After when the key service is out).
 */

/** Where a damaged object was caught: its header (key stanza, MAC) or a payload chunk. */
export type DamageKind = 'header' | 'chunk' | 'truncated' | 'trailing';

/** The stored object does not authenticate: tampered with, truncated or mixed up. No byte of it is trusted. */
export class SealedObjectError extends Error {
  override readonly name = 'SealedObjectError';
  constructor(
    readonly kind: DamageKind,
    detail: string,
  ) {
    super(`encrypted object rejected (${kind}): ${detail}`);
  }
}

/** The vault's key was destroyed (crypto-erase): its files can never be read again. */
export class VaultKeyDestroyedError extends Error {
  override readonly name = 'VaultKeyDestroyedError';
  constructor(readonly vaultId: string) {
    super(`the key of vault ${vaultId} was destroyed`);
  }
}

/** The key-encryption key service (keyring, HSM, KMS) does not answer now: retry later. */
export class KeyServiceUnavailableError extends Error {
  override readonly name = 'KeyServiceUnavailableError';
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`key service unavailable: ${detail}`, options);
  }
}

/** The key service refuses a key: unknown key id, or a wrapped key that does not open with it. */
export class KeyUnwrapError extends Error {
  override readonly name = 'KeyUnwrapError';
}
