import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { errors, jwtVerify, type CryptoKey, type JWTHeaderParameters, type JWTVerifyOptions } from 'jose';
import { AccessTokenClaims, Principal, TOKEN_SIGNING_ALGORITHM } from '@vault/contracts';
import { ServiceEnv } from '../config/env';
import { bearerUnauthorized, missingBearerToken } from './bearer-challenge';
import { JwksKeyStore } from './jwks-key-store';
import { RevocationService } from './revocation.service';

/** Tokens never live longer than revocation entries do, whatever the issuer says. */
export const MAX_TOKEN_AGE_SECONDS = 24 * 60 * 60;

const BEARER = /^\s*bearer\s+(\S+)\s*$/i;

/** Verified tokens remembered at most (each entry is the token text and its claims). */
const VERIFIED_CACHE_SIZE = 10_000;

/** A token whose signature and claims were verified, with the key that verified it. */
interface Verified {
  claims: AccessTokenClaims;
  kid: string;
  key: CryptoKey;
}

export interface TokenVerifierOptions {
  issuer: string;
  audience: string;
}

/**
 * Verifies bearer tokens: the signature with the key named by `kid` (imported
 * once and refreshed in the background by JwksKeyStore), the algorithm pinned to
 * ES256, issuer, audience, expiry, a token age of at most 24 hours, the claims a
 * principal needs, and revocation. Options and the key lookup are built once; a
 * request costs one signature check and no key parsing, and a token seen before costs
 * none while its key and time claims still hold (up to 10,000 tokens remembered).
 */
export class TokenVerifier {
  private readonly options: JWTVerifyOptions;
  private readonly keyFor: (header: JWTHeaderParameters) => Promise<CryptoKey>;
  /** Verified tokens by their full text (signature included), oldest first. */
  private readonly verified = new Map<string, Verified>();

  constructor(
    readonly keys: JwksKeyStore,
    private readonly revocations: Pick<RevocationService, 'isRevoked'>,
    { issuer, audience }: TokenVerifierOptions,
  ) {
    this.options = {
      algorithms: [TOKEN_SIGNING_ALGORITHM],
      issuer,
      audience,
      maxTokenAge: MAX_TOKEN_AGE_SECONDS,
      requiredClaims: ['exp', 'iat'],
    };
    // jose checks the algorithm before it asks for the key: other algorithms never reach the store.
    this.keyFor = async (header) => {
      const key = await this.keys.resolve(header.kid);
      if (!key) throw new errors.JWKSNoMatchingKey();
      return key;
    };
  }

  /** The principal of the request's bearer token; a ProblemException (401) when there is none valid. */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (!token) throw missingBearerToken(authorization);
    const known = this.verified.get(token);
    if (known && this.stillValid(known)) return this.principal(known.claims);
    if (known) this.verified.delete(token);
    let claims: AccessTokenClaims;
    try {
      const { payload, protectedHeader, key } = await jwtVerify<AccessTokenClaims>(token, this.keyFor, this.options);
      claims = payload;
      this.remember(token, { claims, kid: String(protectedHeader.kid), key: key as CryptoKey });
    } catch (err) {
      throw bearerUnauthorized(
        err instanceof errors.JWTExpired ? 'The access token has expired.' : 'A valid access token is required.',
        'invalid_token',
      );
    }
    return this.principal(claims);
  }

  /**
   * A remembered token passes again without a signature check while its key is still
   * the one published for its kid (a rotation or removal forgets it) and its time
   * claims still hold (exp, not before, at most 24 h old); revocation and the claims
   * a principal needs are checked on every request.
   */
  private stillValid({ claims, kid, key }: Verified): boolean {
    const now = Date.now() / 1000;
    const { nbf } = claims as { nbf?: unknown };
    return (
      this.keys.current(kid) === key &&
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
    const { sub, tid, jti, exp } = claims;
    if (!isText(sub) || !isText(tid) || !isText(jti) || !exp) {
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
    };
  }
}

/**
 * The app's token verifier (used by the AccessGuard), on the developer module's
 * JWKS at AUTH_JWKS_URL; its key refresh runs while the app does.
 */
@Injectable()
export class JwtStrategy extends TokenVerifier implements OnModuleInit, OnApplicationShutdown {
  constructor(env: ServiceEnv, revocations: RevocationService) {
    super(new JwksKeyStore(env.AUTH_JWKS_URL), revocations, {
      issuer: env.AUTH_ISSUER,
      audience: env.AUTH_AUDIENCE,
    });
  }

  onModuleInit(): void {
    this.keys.start();
  }

  onApplicationShutdown(): void {
    this.keys.stop();
  }
}

function isText(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}
