import { randomBytes } from 'node:crypto';

/** A new invitation code: 144 bits from the CSPRNG, URL-safe (24 characters). */
export function newInvitationCode(): string {
  return randomBytes(18).toString('base64url');
}
