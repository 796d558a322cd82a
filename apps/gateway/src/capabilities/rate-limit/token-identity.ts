/** The caller a bearer token names, read without verifying it (the modules verify). */
export interface TokenIdentity {
  /** Tenant (`tid` claim). */
  tenant: string;
  /** Identity within the tenant (`sub` claim). */
  subject: string;
}

/** Longest bearer token read; anything longer is treated as no token (the modules refuse it). */
const MAX_TOKEN_LENGTH = 8192;
const MAX_CLAIM_LENGTH = 256;

/**
 * Reads `sub` and `tid` from the payload of a bearer JWT in an Authorization
 * header, without checking its signature, issuer or expiry. Undefined when
 * there is no bearer token or its payload does not name both: the request is
 * then limited as unauthenticated.
 */
export function tokenIdentity(authorization: string | undefined): TokenIdentity | undefined {
  if (!authorization || authorization.length > MAX_TOKEN_LENGTH + 7) return undefined;
  const match = /^bearer +([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/i.exec(authorization.trim());
  if (!match) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(match[2], 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof claims !== 'object' || claims === null) return undefined;
  const { sub, tid } = claims as Record<string, unknown>;
  if (!isClaim(sub) || !isClaim(tid)) return undefined;
  return { tenant: tid, subject: sub };
}

function isClaim(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_CLAIM_LENGTH;
}
