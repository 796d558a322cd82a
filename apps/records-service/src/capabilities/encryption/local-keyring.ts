import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KeyConfigurationError } from './key-configuration.error';
import { KeyUnwrapError } from './encryption.errors';
import { KeyEncryptionKeys, WrappedKey } from './key-encryption-keys';

const IV = 12;
const TAG = 16;

/**
 * Key-encryption keys held in process memory (AES-256-GCM), read from the environment or
 * a keyring file. Wrapped form: IV (12) ‖ ciphertext ‖ tag (16).
 */
export class LocalKeyring extends KeyEncryptionKeys {
  constructor(
    private readonly keys: ReadonlyMap<string, Buffer>,
    activeKekId: string,
    tenantKekIds?: ReadonlyMap<string, string>,
  ) {
    super(activeKekId, tenantKekIds);
    for (const [id, key] of keys) {
      if (key.length !== 32) throw new KeyConfigurationError(`keyring key ${id} is not 32 bytes (AES-256)`);
    }
    for (const id of this.activeKekIds()) {
      if (!keys.has(id)) throw new KeyConfigurationError(`the keyring has no key ${id}`);
    }
  }

  protected async wrapWith(kekId: string, plain: Buffer, aad: Buffer): Promise<Buffer> {
    const iv = randomBytes(IV);
    const c = createCipheriv('aes-256-gcm', this.key(kekId), iv);
    c.setAAD(aad);
    return Buffer.concat([iv, c.update(plain), c.final(), c.getAuthTag()]);
  }

  async unwrap({ kekId, wrapped }: WrappedKey, aad: Buffer): Promise<Buffer> {
    if (wrapped.length < IV + TAG) throw new KeyUnwrapError('wrapped key too short');
    const d = createDecipheriv('aes-256-gcm', this.key(kekId), wrapped.subarray(0, IV));
    d.setAAD(aad);
    d.setAuthTag(wrapped.subarray(wrapped.length - TAG));
    try {
      return Buffer.concat([d.update(wrapped.subarray(IV, wrapped.length - TAG)), d.final()]);
    } catch {
      throw new KeyUnwrapError(`the wrapped key does not open with KEK ${kekId}`);
    }
  }

  private key(kekId: string): Buffer {
    const key = this.keys.get(kekId);
    if (!key) throw new KeyUnwrapError(`the keyring has no key ${kekId}`);
    return key;
  }
}
