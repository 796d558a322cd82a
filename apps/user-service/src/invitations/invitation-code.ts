import { createHash, randomBytes } from 'node:crypto';

/** A new invitation code: 144 bits from the CSPRNG, URL-safe (24 characters). */
export function newInvitationCode(): string {
  return randomBytes(18).toString('base64url');
}

/** Digest stored in place of the code (codes carry enough entropy for a plain hash). */
export function invitationCodeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}
