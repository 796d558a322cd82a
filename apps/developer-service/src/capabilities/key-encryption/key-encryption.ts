import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';

const VERSION = 'v1';
const SCRYPT = { N: 16384, r: 8, p: 1 } as const;

export class KeyDecryptionError extends Error {}

function deriveKey(secret: string, salt: Buffer): Buffer {
  return scryptSync(secret, salt, 32, SCRYPT);
}

/**
 * Encrypts a private key with AES-256-GCM under a key derived from `secret`
 * (scrypt, random salt). `context` (the kid) is bound as associated data, so an
 * envelope cannot be moved to another row. Output: `v1.salt.iv.tag.ciphertext` (base64url).
 */
export function encryptPrivateKey(plain: string, secret: string, context: string): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secret, salt), iv);
  cipher.setAAD(Buffer.from(context));
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, salt, iv, cipher.getAuthTag(), ct].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** Reverses encryptPrivateKey; a wrong secret, context or tampered envelope throws KeyDecryptionError. */
export function decryptPrivateKey(envelope: string, secret: string, context: string): string {
  const parts = envelope.split('.');
  if (parts.length !== 5 || parts[0] !== VERSION) {
    throw new KeyDecryptionError('unrecognised key envelope');
  }
  const [salt, iv, tag, ct] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
  try {
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(secret, salt), iv);
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
  } catch {
    throw new KeyDecryptionError('the key cannot be decrypted with KEY_ENCRYPTION_SECRET');
  }
}
