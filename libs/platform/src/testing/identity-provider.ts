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
}

/**
 * A stand-in identity provider for service integration tests: a real ES256
 * key pair, its JWKS served over loopback HTTP, and real signed tokens.
 * (The developer-service itself is exercised in its own suite and the platform e2e.)
 */
export class TestIdentityProvider {
  private server!: Server;
  private privateKey!: CryptoKey;
  private jwk!: JWK;
  readonly kid = randomUUID();
  jwksUrl = '';

  static async start(): Promise<TestIdentityProvider> {
    const idp = new TestIdentityProvider();
    const { privateKey, publicKey } = await generateKeyPair(TOKEN_SIGNING_ALGORITHM);
    idp.privateKey = privateKey;
    idp.jwk = { ...(await exportJWK(publicKey)), kid: idp.kid, alg: TOKEN_SIGNING_ALGORITHM, use: 'sig' };
    idp.server = createServer((_, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ keys: [idp.jwk] }));
    });
    await new Promise<void>((r) => idp.server.listen(0, '127.0.0.1', r));
    idp.jwksUrl = `http://127.0.0.1:${(idp.server.address() as AddressInfo).port}/jwks.json`;
    return idp;
  }

  /** Env variables that point a service at this provider. */
  env(): Record<string, string> {
    return { AUTH_JWKS_URL: this.jwksUrl, AUTH_ISSUER: TEST_ISSUER, AUTH_AUDIENCE: DEFAULT_TOKEN_AUDIENCE };
  }

  async token(o: TokenOptions = {}): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      tid: o.tid ?? 'tenant-a',
      cid: o.cid ?? 'client-a',
      scope: o.scope ?? 'vault',
      ...(o.username ? { preferred_username: o.username } : {}),
    })
      .setProtectedHeader({ alg: TOKEN_SIGNING_ALGORITHM, kid: this.kid, typ: 'JWT' })
      .setSubject(o.sub ?? `vault|${randomUUID()}`)
      .setIssuer(o.iss ?? TEST_ISSUER)
      .setAudience(o.aud ?? DEFAULT_TOKEN_AUDIENCE)
      .setIssuedAt(now - (o.expiresIn !== undefined && o.expiresIn < 0 ? 600 : 0))
      .setExpirationTime(now + (o.expiresIn ?? 600))
      .setJti(o.jti ?? randomUUID())
      .sign(this.privateKey);
  }

  async stop(): Promise<void> {
    await new Promise((r) => this.server.close(r));
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
  };
}
