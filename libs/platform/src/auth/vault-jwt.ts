import type { IncomingHttpHeaders } from 'node:http';
import type { KeyObject } from 'node:crypto';
import type { StrategyOptionsWithRequest } from 'passport-jwt';
import { AccessTokenClaims, Principal, TOKEN_SIGNING_ALGORITHM } from '@vault/contracts';
import { ProblemException } from '../errors/problem.exception';
import { bearerUnauthorized, missingBearerToken } from './bearer-challenge';
import type { JwksKeyStore } from './jwks-key-store';
import type { RevocationService } from './revocation.service';

/** Tokens never live longer than revocation entries do, whatever the issuer says. */
export const MAX_TOKEN_AGE_SECONDS = 24 * 60 * 60;

/** Verified tokens remembered at most (each entry is the token text and its claims). */
const VERIFIED_CACHE_SIZE = 10_000;

const BEARER = /^\s*bearer\s+(\S+)\s*$/i;

/** Where the key provider leaves the key it handed out, for validate() to remember the token by. */
const USED_KEY = Symbol('vault-jwt:used-key');

/** What the strategies read of a request. */
export type TokenRequest = { headers: IncomingHttpHeaders; [USED_KEY]?: { kid: string; key: KeyObject } };

/** The token of a `Bearer <token>` Authorization header, else undefined. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

/** A token whose signature and claims were verified, with the key that verified it. */
interface Verified {
  claims: AccessTokenClaims;
  kid: string;
  key: KeyObject;
}

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
}

/**
 * What the platform's passport-jwt strategy is made of: its options, whose
 * `secretOrKeyProvider` is the hardened JWKS key store (unknown key ids cost at most one
 * fetch per cooldown, keys imported once and kept as KeyObjects), the algorithm pinned to
 * ES256 before any key is looked up; jsonwebtoken then checks the signature, issuer,
 * audience, expiry, not-before and an age of at most 24 hours; `validate` checks the claims
 * a principal needs and revocation. A token verified before passes again without a
 * signature check while its key and time claims still hold (`cached`, up to 10,000 tokens).
 */
export class VaultJwt {
  readonly options: StrategyOptionsWithRequest;
  /** Verified tokens by their full text (signature included), oldest first. */
  private readonly verified = new Map<string, Verified>();

  constructor(
    readonly keys: JwksKeyStore,
    private readonly revocations: Pick<RevocationService, 'isRevoked'>,
    { issuer, audience }: TokenVerifierOptions,
  ) {
    this.options = {
      jwtFromRequest: (req: TokenRequest) => bearerToken(firstHeader(req.headers.authorization)) ?? null,
      secretOrKeyProvider: (req: TokenRequest, raw: string, done) => {
        this.keyFor(req, raw).then(
          (key) => done(null, key as unknown as Buffer),
          (err: unknown) => done(err),
        );
      },
      issuer,
      audience,
      algorithms: [TOKEN_SIGNING_ALGORITHM],
      jsonWebTokenOptions: { maxAge: MAX_TOKEN_AGE_SECONDS },
      passReqToCallback: true,
    };
  }

  /** The key of the token's `kid` (ES256 tokens only: others never reach the key store). */
  private async keyFor(req: TokenRequest, raw: string): Promise<KeyObject> {
    const header = decodeHeader(raw);
    if (header?.alg !== TOKEN_SIGNING_ALGORITHM) throw new Error('token algorithm not allowed');
    const key = await this.keys.resolveKeyObject(header.kid);
    if (!key) throw new Error('no key for the token');
    req[USED_KEY] = { kid: String(header.kid), key };
    return key;
  }

  /** The principal of a token jsonwebtoken verified (remembered for the next requests). */
  validate(req: TokenRequest, payload: unknown): Principal {
    const claims = payload as AccessTokenClaims;
    const principal = this.principal(claims);
    const token = bearerToken(firstHeader(req.headers.authorization));
    const used = req[USED_KEY];
    if (token && used) this.remember(token, { claims, ...used });
    return principal;
  }

  /** The principal of a token verified before that still holds (revocation checked again), else undefined. */
  cached(req: TokenRequest): Principal | undefined {
    const token = bearerToken(firstHeader(req.headers.authorization));
    const known = token === undefined ? undefined : this.verified.get(token);
    if (!token || !known) return undefined;
    if (this.stillValid(known)) return this.principal(known.claims);
    this.verified.delete(token);
    return undefined;
  }

  /**
   * A remembered token passes again while its key is still the one published for its kid
   * (a rotation or removal forgets it) and its time claims still hold (exp, not before,
   * at most 24 h old).
   */
  private stillValid({ claims, kid, key }: Verified): boolean {
    const now = Date.now() / 1000;
    const { nbf } = claims as { nbf?: unknown };
    return (
      this.keys.currentKeyObject(kid) === key &&
      typeof claims.exp === 'number' &&
      now < claims.exp &&
      (typeof nbf !== 'number' || now >= nbf) &&
      typeof claims.iat === 'number' &&
      now - claims.iat <= MAX_TOKEN_AGE_SECONDS
    );
  }

  private remember(token: string, verified: Verified): void {
    if (this.verified.size >= VERIFIED_CACHE_SIZE) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, verified);
  }

  private principal(claims: AccessTokenClaims): Principal {
    const { sub, tid, jti, exp, iat } = claims;
    if (!isText(sub) || !isText(tid) || !isText(jti) || !exp || typeof iat !== 'number') {
      throw bearerUnauthorized('The access token lacks required claims.', 'invalid_token');
    }
    if (this.revocations.isRevoked(jti, { tenantId: tid, openId: sub })) {
      throw bearerUnauthorized('The access token has been revoked.', 'invalid_token');
    }
    return {
      openId: sub,
      tenantId: tid,
      clientId: claims.cid,
      username: claims.preferred_username,
      scopes: typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [],
      roles: Array.isArray(claims.roles) ? claims.roles.filter((r): r is string => typeof r === 'string') : [],
      tokenId: jti,
      expiresAt: exp,
      ...(isSignInTime(claims.auth_time, iat) ? { authTime: claims.auth_time } : {}),
    };
  }
}

/**
 * The 401 for a request no strategy authenticated, from what the strategies failed with
 * (one failure, or one per strategy): a problem a strategy raised as is; no usable bearer
 * token: the plain challenge (or `invalid_request` for a malformed one); an expired token
 * or one over 24 hours old: "expired"; anything else `invalid_token`.
 */
export function bearerRefusal(info: unknown, authorization: string | undefined): ProblemException {
  const failures = Array.isArray(info) ? info : [info];
  const raised = failures.find((f) => f instanceof ProblemException);
  if (raised) return raised;
  if (!bearerToken(authorization)) return missingBearerToken(authorization);
  const expired = failures.some((f) => f instanceof Error && f.name === 'TokenExpiredError');
  return bearerUnauthorized(expired ? 'The access token has expired.' : 'A valid access token is required.', 'invalid_token');
}

function decodeHeader(raw: string): { alg?: unknown; kid?: unknown } | undefined {
  const dot = raw.indexOf('.');
  if (dot <= 0) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(raw.slice(0, dot), 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null ? header : undefined;
  } catch {
    return undefined;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isText(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

/** Leeway for an `auth_time` after the token's `iat` (the issuer's clocks may differ a little). */
const AUTH_TIME_LEEWAY_SECONDS = 60;

/** An `auth_time` a principal may carry: a number, not after the token's issuance (beyond the leeway). */
function isSignInTime(authTime: unknown, iat: number): authTime is number {
  return typeof authTime === 'number' && Number.isFinite(authTime) && authTime <= iat + AUTH_TIME_LEEWAY_SECONDS;
}
