import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing key: `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** How long the key before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The keys that sign now: the current one, and the previous one while its overlap lasts. */
export function signingKeys(
  w: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): string[] {
  const previous = w.previousSecret && w.previousSecretExpiresAt && w.previousSecretExpiresAt > now;
  return previous ? [w.secret, w.previousSecret as string] : [w.secret];
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-signature` holds one
 * `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per key, separated by spaces.
 */
export function signedHeaders(keys: string[], id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  const signatures = keys.map((k) => new Webhook(k).sign(id, new Date(timestamp * 1000), body));
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatures.join(' '),
  };
}
