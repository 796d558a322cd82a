import { Injectable } from '@nestjs/common';
import { ACCESS_TOKEN_SCOPE, OPEN_ID_PROVIDER, TOKEN_SIGNING_ALGORITHM, TokenResponseDto } from '@vault/contracts';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { ClosedIdentitiesService } from '../closed-identities/closed-identities.service';
import { DeveloperEnv, tokenIdentity } from '../../config/developer.env';
import { SigningKeysService } from '../signing-keys/signing-keys.service';

/** The identity (`sub`) of an organisation user's tokens. */
export const openIdOf = (userId: string): string => `${OPEN_ID_PROVIDER}|${userId}`;

/** Who a token is issued to. */
export interface TokenSubject {
  /** Organisation user id (uuid); the token's sub is `vault|<userId>`. */
  userId: string;
  username: string;
  tenantId: string;
  clientId: string;
  /** Tenant roles of the user (claim `roles`, absent when none). */
  roles?: string[];
  /**
   * When the user signed in with their credentials (seconds since the epoch, claim `auth_time`);
   * default: now (a sign-in); null: no claim (a token issued without credentials).
   */
  authTime?: number | null;
}

/** A signed access token and its id (`jti`). */
export interface SignedAccessToken {
  accessToken: string;
  /** The token's `jti`. */
  tokenId: string;
  expiresIn: number;
  /** The token's `auth_time`, when it has one. */
  authTime?: number;
}

/** Signs access tokens (ES256, kid + typ JWT in the header) with the active key. */
@Injectable()
export class TokenSigner {
  constructor(
    private readonly env: DeveloperEnv,
    private readonly keys: SigningKeysService,
    private readonly closed: ClosedIdentitiesService,
  ) {}

  /** Signs a token for `subject`; 403 account_deleted when the identity deleted its account. */
  async issue(subject: TokenSubject): Promise<TokenResponseDto> {
    const signed = await this.sign(subject);
    return { access_token: signed.accessToken, expires_in: signed.expiresIn, token_type: 'Bearer' };
  }

  /** Signs a token for `subject` and names its id; 403 account_deleted like `issue`. */
  async sign(subject: TokenSubject): Promise<SignedAccessToken> {
    const sub = openIdOf(subject.userId);
    await this.closed.assertOpen(subject.tenantId, sub);
    const { kid, privateKey } = this.keys.activeKey();
    const { issuer, audience } = tokenIdentity(this.env);
    const ttl = this.env.TOKEN_TTL_SECONDS;
    const now = Math.floor(Date.now() / 1000);
    const tokenId = randomUUID();
    const authTime = subject.authTime === null ? undefined : (subject.authTime ?? now);
    const accessToken = await new SignJWT({
      tid: subject.tenantId,
      cid: subject.clientId,
      scope: ACCESS_TOKEN_SCOPE,
      preferred_username: subject.username,
      ...(subject.roles?.length ? { roles: subject.roles } : {}),
      ...(authTime === undefined ? {} : { auth_time: authTime }),
    })
      .setProtectedHeader({ alg: TOKEN_SIGNING_ALGORITHM, kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(sub)
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .setJti(tokenId)
      .sign(privateKey);
    return { accessToken, tokenId, expiresIn: ttl, ...(authTime === undefined ? {} : { authTime }) };
  }
}
