import { createHash, randomBytes } from 'node:crypto';

/** Random bytes of a refresh token: 256 bits. */
const TOKEN_BYTES = 32;

/** What a refresh token looks like: 43 base64url characters (32 bytes, no padding). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A new opaque refresh token: 256 random bits, base64url. */
export function newRefreshToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * The stored form of a token: its SHA-256. A slow password hash adds nothing for 256
 * random bits (nobody can guess them), and a plain digest lets the token be found by it.
 */
export function hashRefreshToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** True when `value` could be a refresh token this service issued (anything else is unknown without a lookup). */
export function hasRefreshTokenShape(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}
