import { BlobCipherService } from './blob-cipher.service';
import type { EncryptionEnv } from './encryption.env';
import { KeyConfigurationError } from './key-configuration.error';
import type { VaultKeysService } from './vault-keys.service';

describe('ENCRYPTION_AT_REST (the benchmark switch)', () => {
  const keys = {} as VaultKeysService;
  const env = (NODE_ENV: string, ENCRYPTION_AT_REST: string) => ({ NODE_ENV, ENCRYPTION_AT_REST }) as unknown as EncryptionEnv;

  it('refuses plaintext storage in production at start', () => {
    expect(() => new BlobCipherService(keys, env('production', 'plaintext'))).toThrow(KeyConfigurationError);
  });

  it('encrypts by default and in production, stores plaintext only when asked outside production', () => {
    expect(new BlobCipherService(keys).atRest).toBe(true);
    expect(new BlobCipherService(keys, env('production', 'on')).atRest).toBe(true);
    expect(new BlobCipherService(keys, env('development', 'plaintext')).atRest).toBe(false);
  });
});
