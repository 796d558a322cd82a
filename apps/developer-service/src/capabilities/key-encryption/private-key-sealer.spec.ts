import { EnvValidationError } from '@vault/platform/config';
import { DeveloperEnv } from '../../config/developer.env';
import { PrivateKeySealer } from './private-key-sealer';

const JWK = '{"kty":"EC","crv":"P-256","d":"private-part"}';
const sealer = (secret?: string) => new PrivateKeySealer({ KEY_ENCRYPTION_SECRET: secret } as DeveloperEnv);

describe('PrivateKeySealer', () => {
  it('stores keys as JSON without a secret, and opens them', () => {
    const plain = sealer();
    expect(plain.enabled).toBe(false);
    const stored = { kid: 'k1', ...plain.seal('k1', JWK) };
    expect(stored).toEqual({ kid: 'k1', privateJwk: JWK, encrypted: false });
    expect(plain.open(stored)).toBe(JWK);
  });

  it('seals keys under the secret, bound to their kid', () => {
    const sealed = sealer('correct horse battery staple');
    expect(sealed.enabled).toBe(true);
    const stored = { kid: 'k1', ...sealed.seal('k1', JWK) };
    expect(stored.encrypted).toBe(true);
    expect(stored.privateJwk).not.toContain('private-part');
    expect(sealed.open(stored)).toBe(JWK);
    expect(() => sealed.open({ ...stored, kid: 'k2' })).toThrow(
      /^Invalid configuration:\n {2}- KEY_ENCRYPTION_SECRET: .*\(key k2\)$/,
    );
  });

  it('stops the boot, naming KEY_ENCRYPTION_SECRET, when an encrypted key cannot be opened', () => {
    const stored = { kid: 'k1', ...sealer('correct horse battery staple').seal('k1', JWK) };
    expect(() => sealer().open(stored)).toThrow(EnvValidationError);
    expect(() => sealer().open(stored)).toThrow(/KEY_ENCRYPTION_SECRET: required, the stored signing key k1 is encrypted/);
    expect(() => sealer('another secret value!').open(stored)).toThrow(/KEY_ENCRYPTION_SECRET: the key cannot be decrypted/);
  });
});
