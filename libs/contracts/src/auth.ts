/** Claims of a platform access token (docs/developer-api.md, Token format). */
export interface AccessTokenClaims {
  iss: string;
  aud: string | string[];
  /** Identity's openId, shaped `<provider>|<id>`. */
  sub: string;
  tid: string;
  cid: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
  /** Organisation username the token was issued to. */
  preferred_username?: string;
  /** Tenant roles of the organisation user (`compliance`: docs/records-api.md, Legal holds); absent when none. */
  roles?: string[];
  /**
   * When the user signed in with their credentials (seconds since the epoch, OpenID Connect's
   * `auth_time`): a refreshed token keeps its sign-in's time.
   */
  auth_time?: number;
}

/** The authenticated caller as seen by every service after token verification. */
export interface Principal {
  openId: string;
  tenantId: string;
  clientId: string;
  username?: string;
  scopes: string[];
  /** Tenant roles from the token's `roles` claim (`compliance`); empty when none. */
  roles?: string[];
  tokenId: string;
  expiresAt: number;
  /** The token's `auth_time` (seconds since the epoch), when it has one. */
  authTime?: number;
}

/** Identity provider prefix of openIds issued by the developer module. */
export const OPEN_ID_PROVIDER = 'vault';

export const DEFAULT_TOKEN_AUDIENCE = 'vault-api';
export const TOKEN_SIGNING_ALGORITHM = 'ES256';
export const JWKS_PATH = '.well-known/jwks.json';
