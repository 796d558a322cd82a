import { decryptPrivateKey, encryptPrivateKey, KeyDecryptionError } from './key-encryption';

const SECRET = 'correct horse battery staple';
const JWK = '{"kty":"EC","crv":"P-256","d":"private-part"}';

describe('key encryption', () => {
  it('round-trips and never shows the plaintext', () => {
    const envelope = encryptPrivateKey(JWK, SECRET, 'kid-1');
    expect(envelope.startsWith('v1.')).toBe(true);
    expect(envelope).not.toContain('private-part');
    expect(decryptPrivateKey(envelope, SECRET, 'kid-1')).toBe(JWK);
  });

  it('uses a fresh salt and IV each time', () => {
    expect(encryptPrivateKey(JWK, SECRET, 'k')).not.toBe(encryptPrivateKey(JWK, SECRET, 'k'));
  });

  it('refuses a wrong secret, another kid, a tampered or foreign envelope', () => {
    const envelope = encryptPrivateKey(JWK, SECRET, 'kid-1');
    expect(() => decryptPrivateKey(envelope, 'another secret!!', 'kid-1')).toThrow(KeyDecryptionError);
    expect(() => decryptPrivateKey(envelope, SECRET, 'kid-2')).toThrow(KeyDecryptionError);
    const parts = envelope.split('.');
    parts[4] = Buffer.from('tampered').toString('base64url');
    expect(() => decryptPrivateKey(parts.join('.'), SECRET, 'kid-1')).toThrow(KeyDecryptionError);
    expect(() => decryptPrivateKey(JWK, SECRET, 'kid-1')).toThrow(KeyDecryptionError);
  });
});
