import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** Lifetime of a code. */
export const MFA_CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong guesses after which a code dies. */
export const MFA_MAX_ATTEMPTS = 5;

/** Six digits from the CSPRNG, leading zeros kept. */
export function newMfaCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

function digest(salt: string, code: string): string {
  return createHash('sha256').update(`${salt}:${code}`, 'utf8').digest('hex');
}

/** `<salt>:<digest>` of a code, with a fresh random salt. */
export function hashMfaCode(code: string): string {
  const salt = randomBytes(16).toString('hex');
  return `${salt}:${digest(salt, code)}`;
}

/** Constant-time comparison of a candidate code with a stored hash. */
export function mfaCodeMatches(code: string, stored: string): boolean {
  const [salt, expected] = stored.split(':');
  if (!salt || !expected) return false;
  const a = Buffer.from(digest(salt, code), 'hex');
  const b = Buffer.from(expected, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
