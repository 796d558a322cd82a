import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Prefix of a sealed value; a stored value without it is a plain-text secret from before encryption. */
const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** One key of the ring: its id (written into every value it seals) and 32 bytes of AES-256 key. */
export interface RingKey {
  id: string;
  key: Buffer;
}

/** A stored secret that cannot be opened: its key is not in the ring, or the value was altered or moved. */
export class SecretUnreadableError extends Error {}

/**
 * Parses a keyring, `<keyId>:<base64 of 32 bytes>[,<keyId>:<key>…]` (WEBHOOK_SECRET_KEYS);
 * throws naming what is wrong, never showing key material.
 */
export function parseKeyring(value: string): RingKey[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('no key: expected <keyId>:<base64 of 32 bytes>[,<keyId>:<key>…]');
  const keys = entries.map((entry, i) => {
    const at = entry.indexOf(':');
    const id = at < 0 ? '' : entry.slice(0, at);
    const encoded = at < 0 ? '' : entry.slice(at + 1);
    if (!KEY_ID.test(id)) throw new Error(`key ${i + 1}: expected <keyId>:<key>, the id 1-32 letters, digits, _ or -`);
    const key = Buffer.from(encoded, 'base64');
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) || key.length !== KEY_BYTES) {
      throw new Error(`key "${id}": expected the base64 of ${KEY_BYTES} bytes (openssl rand -base64 ${KEY_BYTES})`);
    }
    return { id, key };
  });
  const ids = keys.map((k) => k.id);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated) throw new Error(`key "${repeated}" is listed twice`);
  return keys;
}

/** A new ring of one random key (the development keyring). */
export const newKeyring = (id: string): string => `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;

/**
 * Envelope encryption of webhook signing secrets with AES-256-GCM (docs/webhooks.md,
 * Secrets at rest). A sealed value is `v1:<keyId>:<base64url of nonce | ciphertext | tag>`,
 * with a random 96-bit nonce per value; the owner (the webhook id) and the value's own
 * `v1:<keyId>` are its additional authenticated data, so a value copied to another row,
 * relabelled or altered does not open. The first key of the ring seals; every key opens.
 */
export class SecretBox {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly ring: RingKey[]) {
    if (ring.length === 0) throw new Error('a keyring needs at least one key');
    this.byId = new Map(ring.map((k) => [k.id, k.key]));
  }

  /** Id of the key that seals. */
  get currentKeyId(): string {
    return this.ring[0].id;
  }

  seal(plain: string, owner: string): string {
    const { id, key } = this.ring[0];
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(aad(id, owner));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${id}:${Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /** The secret of a stored value: opened when sealed, as it is when plain text. */
  open(stored: string, owner: string): string {
    if (!isSealed(stored)) return stored;
    const [, id, payload = ''] = stored.split(':');
    const key = this.byId.get(id);
    if (!key)
      throw new SecretUnreadableError(`the signing secret is sealed with key "${id}", which WEBHOOK_SECRET_KEYS does not hold`);
    const bytes = Buffer.from(payload, 'base64url');
    try {
      if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new Error('too short');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES));
      decipher.setAAD(aad(id, owner));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SecretUnreadableError(
        `the signing secret does not decrypt with key "${id}" (the stored value was altered or belongs to another webhook)`,
      );
    }
  }

  /** True when a stored value is sealed with the key that seals now (nothing to re-encrypt). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`${VERSION}:${this.currentKeyId}:`);
  }
}

const isSealed = (stored: string) => stored.startsWith(`${VERSION}:`);

const aad = (keyId: string, owner: string) => Buffer.from(`${VERSION}:${keyId}:${owner}`, 'utf8');
