import { Injectable } from '@nestjs/common';
import { EnvValidationError } from '@vault/platform/config';
import { DeveloperEnv } from '../../config/developer.env';
import { decryptPrivateKey, encryptPrivateKey, KeyDecryptionError } from './key-encryption';

/** A private key as stored: its JWK as JSON, or the envelope of that JSON when `encrypted`. */
export interface StoredPrivateKey {
  kid: string;
  privateJwk: string;
  encrypted: boolean;
}

/**
 * Private signing keys at rest: sealed under KEY_ENCRYPTION_SECRET when it is set
 * (AES-256-GCM, bound to the key's kid), kept as JSON otherwise.
 */
@Injectable()
export class PrivateKeySealer {
  private readonly secret?: string;

  constructor(env: DeveloperEnv) {
    this.secret = env.KEY_ENCRYPTION_SECRET || undefined;
  }

  /** True when keys are stored encrypted (KEY_ENCRYPTION_SECRET is set). */
  get enabled(): boolean {
    return this.secret !== undefined;
  }

  /** What to store for the private key `json` of `kid`. */
  seal(kid: string, json: string): Omit<StoredPrivateKey, 'kid'> {
    return this.secret
      ? { privateJwk: encryptPrivateKey(json, this.secret, kid), encrypted: true }
      : { privateJwk: json, encrypted: false };
  }

  /** The JSON of a stored private key; a missing or wrong secret stops the boot, naming KEY_ENCRYPTION_SECRET. */
  open(stored: StoredPrivateKey): string {
    if (!stored.encrypted) return stored.privateJwk;
    if (!this.secret) {
      throw new EnvValidationError([`KEY_ENCRYPTION_SECRET: required, the stored signing key ${stored.kid} is encrypted`]);
    }
    try {
      return decryptPrivateKey(stored.privateJwk, this.secret, stored.kid);
    } catch (e) {
      if (e instanceof KeyDecryptionError) {
        throw new EnvValidationError([`KEY_ENCRYPTION_SECRET: ${e.message} (key ${stored.kid})`]);
      }
      throw e;
    }
  }
}
