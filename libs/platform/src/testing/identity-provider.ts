import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, JWK, SignJWT, type CryptoKey } from 'jose';
import { DEFAULT_TOKEN_AUDIENCE, TOKEN_SIGNING_ALGORITHM } from '@vault/contracts';

export const TEST_ISSUER = 'https://developer-api.localhost:8443/api/v1';

export interface TokenOptions {
  sub?: string;
  tid?: string;
  cid?: string;
  scope?: string;
  /** Seconds from now; negative makes an expired token. */
  expiresIn?: number;
  iss?: string;
  aud?: string;
  jti?: string;
  username?: string;
  /** Tenant roles (claim `roles`), such as `compliance`. */
  roles?: string[];
  /** Key id written in the header (default: the kid of the key that signs). */
  kid?: string;
  /** Published key to sign with (default: the current signing key). */
  signWith?: string;
  /** Seconds before now for `iat` (default 0, or 600 for expired tokens). */
  issuedAgo?: number;
  /** Seconds before now for `auth_time` (the sign-in; default: the token's `iat`); null leaves the claim out. */
  signedInAgo?: number | null;
}

interface SigningKey {
  privateKey: CryptoKey;
  jwk: JWK;
}

/**
 * A stand-in identity provider for service integration tests: a real ES256
 * key pair, its JWKS served over loopback HTTP, and real signed tokens.
 * (The developer-service itself is exercised in its own suite and the platform e2e.)
 */
export class TestIdentityProvider {
  private server!: Server;
  /** Published keys by kid (the JWKS serves all of them). */
  private readonly keys = new Map<string, SigningKey>();
  /** Kid of the key new tokens are signed with. */
  kid = '';
  jwksUrl = '';
  /** JWKS requests served so far. */
  jwksFetches = 0;
  /** While set, the JWKS answers this status instead of the keys. */
  failWith?: number;
  /** While set, the JWKS answers only after this many milliseconds. */
  delayMs = 0;
  /** Further JWKS entries served after the published keys (foreign or malformed keys). */
  extraJwks: JWK[] = [];

  static async start(): Promise<TestIdentityProvider> {
    const idp = new TestIdentityProvider();
    idp.kid = await idp.addKey();
    idp.server = createServer((_, res) => {
      idp.jwksFetches++;
      const status = idp.failWith;
      const body = JSON.stringify({ keys: [...[...idp.keys.values()].map((k) => k.jwk), ...idp.extraJwks] });
      setTimeout(() => {
        if (status) {
          res.statusCode = status;
          res.end();
          return;
        }
        res.setHeader('content-type', 'application/json');
        res.end(body);
      }, idp.delayMs);
    });
    await new Promise<void>((r) => idp.server.listen(0, '127.0.0.1', r));
    idp.jwksUrl = `http://127.0.0.1:${(idp.server.address() as AddressInfo).port}/jwks.json`;
    return idp;
  }

  /** Env variables that point a service at this provider. */
  env(): Record<string, string> {
    return { AUTH_JWKS_URL: this.jwksUrl, AUTH_ISSUER: TEST_ISSUER, AUTH_AUDIENCE: DEFAULT_TOKEN_AUDIENCE };
  }

  /** The published public JWK of the signing key. */
  publicJwk(): JWK {
    const key = this.keys.get(this.kid);
    if (!key) throw new Error('no signing key');
    return key.jwk;
  }

  /** Publishes a new key pair (not yet used for signing) and returns its kid. */
  async addKey(): Promise<string> {
    const kid = randomUUID();
    const { privateKey, publicKey } = await generateKeyPair(TOKEN_SIGNING_ALGORITHM);
    const jwk = { ...(await exportJWK(publicKey)), kid, alg: TOKEN_SIGNING_ALGORITHM, use: 'sig' };
    this.keys.set(kid, { privateKey, jwk });
    return kid;
  }

  /** Rotation: publishes a new key and signs new tokens with it; the old key stays published. */
  async rotate(): Promise<string> {
    this.kid = await this.addKey();
    return this.kid;
  }

  /** Stops publishing a key (tokens it signed no longer verify once verifiers refresh). */
  removeKey(kid: string): void {
    this.keys.delete(kid);
  }

  /** A token signed by a key pair that is never published, under a fresh random kid. */
  async unpublishedToken(o: TokenOptions = {}): Promise<string> {
    const { privateKey } = await generateKeyPair(TOKEN_SIGNING_ALGORITHM);
    return this.sign(o, privateKey, o.kid ?? randomUUID());
  }

  async token(o: TokenOptions = {}): Promise<string> {
    const signer = this.keys.get(o.signWith ?? this.kid);
    if (!signer) throw new Error(`no published key ${o.signWith ?? this.kid}`);
    return this.sign(o, signer.privateKey, o.kid ?? o.signWith ?? this.kid);
  }

  private async sign(o: TokenOptions, privateKey: CryptoKey, kid: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const iat = now - (o.issuedAgo ?? (o.expiresIn !== undefined && o.expiresIn < 0 ? 600 : 0));
    return new SignJWT({
      tid: o.tid ?? 'tenant-a',
      cid: o.cid ?? 'client-a',
      scope: o.scope ?? 'vault',
      ...(o.username ? { preferred_username: o.username } : {}),
      ...(o.roles ? { roles: o.roles } : {}),
      ...(o.signedInAgo === null ? {} : { auth_time: o.signedInAgo === undefined ? iat : now - o.signedInAgo }),
    })
      .setProtectedHeader({ alg: TOKEN_SIGNING_ALGORITHM, kid, typ: 'JWT' })
      .setSubject(o.sub ?? `vault|${randomUUID()}`)
      .setIssuer(o.iss ?? TEST_ISSUER)
      .setAudience(o.aud ?? DEFAULT_TOKEN_AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(now + (o.expiresIn ?? 600))
      .setJti(o.jti ?? randomUUID())
      .sign(privateKey);
  }

  async stop(): Promise<void> {
    const closed = new Promise((r) => this.server.close(r));
    this.server.closeAllConnections();
    await closed;
  }
}

/** Tokens that every protected route must refuse with 401. */
export async function badTokens(idp: TestIdentityProvider): Promise<Record<string, string>> {
  const good = await idp.token();
  const [h, p] = good.split('.');
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
  const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, tid: 'other-tenant' })).toString('base64url')}.${good.split('.')[2]}`;
  return {
    junk: 'not-a-token',
    algNone: none,
    tampered,
    expired: await idp.token({ expiresIn: -60 }),
    wrongAudience: await idp.token({ aud: 'someone-else' }),
    wrongIssuer: await idp.token({ iss: 'https://evil.example' }),
    // HS256 keyed with the published public key: the classic algorithm confusion.
    wrongAlgorithm: await new SignJWT(payload)
      .setProtectedHeader({ alg: 'HS256', kid: idp.kid, typ: 'JWT' })
      .sign(new TextEncoder().encode(JSON.stringify(idp.publicJwk()))),
    // Issued 25 hours ago, still unexpired: older than any token may be.
    tooOld: await idp.token({ issuedAgo: 25 * 60 * 60 }),
    unknownKey: await idp.unpublishedToken(),
  };
}
