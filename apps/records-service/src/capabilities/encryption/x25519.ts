import { createPrivateKey, createPublicKey, diffieHellman, KeyObject, randomBytes } from 'node:crypto';
import { bech32Decode, bech32Encode } from './bech32';

/** DER prefixes of an X25519 private key (PKCS#8) and public key (SPKI) around the raw 32 bytes. */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

const IDENTITY_HRP = 'age-secret-key-';
const RECIPIENT_HRP = 'age';

function privateKey(secret: Buffer): KeyObject {
  if (secret.length !== 32) throw new Error('an X25519 secret key is 32 bytes');
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, secret]), format: 'der', type: 'pkcs8' });
}

function publicKey(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error('an X25519 public key is 32 bytes');
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

/** A new random X25519 secret key (32 bytes; clamped where it is used). */
export function newSecretKey(): Buffer {
  return randomBytes(32);
}

/** The public key (32 bytes) of an X25519 secret key. */
export function publicKeyOf(secret: Buffer): Buffer {
  const der = createPublicKey(privateKey(secret)).export({ format: 'der', type: 'spki' });
  return der.subarray(SPKI_PREFIX.length);
}

/** X25519(secret, public): the shared secret; throws when it is all zero (a low-order point). */
export function x25519(secret: Buffer, peerPublic: Buffer): Buffer {
  const shared = diffieHellman({ privateKey: privateKey(secret), publicKey: publicKey(peerPublic) });
  if (shared.every((b) => b === 0)) throw new Error('X25519: low-order public key');
  return shared;
}

/** `AGE-SECRET-KEY-1…`: the form the age CLI reads from an identity file. */
export function formatIdentity(secret: Buffer): string {
  return bech32Encode(IDENTITY_HRP, secret).toUpperCase();
}

export function parseIdentity(text: string): Buffer {
  const secret = bech32Decode(IDENTITY_HRP, text.trim());
  if (secret.length !== 32) throw new Error('an age identity holds 32 bytes');
  return secret;
}

/** `age1…`: the recipient form of a public key. */
export function formatRecipient(pub: Buffer): string {
  return bech32Encode(RECIPIENT_HRP, pub);
}

export function parseRecipient(text: string): Buffer {
  const pub = bech32Decode(RECIPIENT_HRP, text.trim());
  if (pub.length !== 32) throw new Error('an age recipient holds 32 bytes');
  return pub;
}
