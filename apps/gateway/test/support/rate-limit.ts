import { randomBytes } from 'node:crypto';

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** A bearer token shaped like the platform's (ES256 JWT) naming `tid`/`sub`; its signature is not valid. */
export function bearer(tenant: string, subject: string): string {
  return `Bearer ${b64({ alg: 'ES256', typ: 'JWT', kid: 'test' })}.${b64({ sub: subject, tid: tenant })}.${randomBytes(32).toString('base64url')}`;
}

/** A KV bucket name of its own for one suite. */
export function uniqueBucket(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/**
 * Waits for the next minute when fewer than `needMs` are left in this one, so a
 * test that counts requests runs inside one rate-limit window.
 */
export async function inOneWindow(needMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
}

/** The parameters of the RateLimit header (`"<policy>";r=<n>;t=<s>`). */
export function parseRateLimit(value: string | string[] | undefined): { policy: string; r: number; t: number } {
  const m = /^"([a-z]+)";r=(\d+);t=(\d+)$/.exec(String(value));
  if (!m) throw new Error(`not a RateLimit field: ${String(value)}`);
  return { policy: m[1], r: Number(m[2]), t: Number(m[3]) };
}
