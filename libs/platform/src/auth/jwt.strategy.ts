import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import passport from 'passport';
import { Strategy, type VerifyCallbackWithRequest } from 'passport-jwt';
import type { Principal } from '@vault/contracts';
import { ServiceEnv } from '../config/env';
import { JwksKeyStore } from './jwks-key-store';
import { RevocationService } from './revocation.service';
import { bearerRefusal, TokenRequest, TokenVerifierOptions, VaultJwt } from './vault-jwt';

export { MAX_TOKEN_AGE_SECONDS, type TokenVerifierOptions } from './vault-jwt';

/** The passport name of the platform's bearer-token strategy. */
export const VAULT_JWT_STRATEGY = 'vault-jwt';

/**
 * passport-jwt's strategy on the platform's key store (VaultJwt), with one addition: a
 * token verified before that still holds passes at once (`success`), revocation checked;
 * every other request goes through passport-jwt (key provider, jsonwebtoken, validate).
 */
export class CachedJwtStrategy extends Strategy {
  constructor(
    protected readonly jwt: VaultJwt,
    verify: VerifyCallbackWithRequest,
  ) {
    super(jwt.options, verify);
  }

  override authenticate(req: Request, options?: object): void {
    // (`this` is passport's per-request copy of the strategy, with success/error added)
    const self = this as unknown as { success(user: Principal): void; error(err: unknown): void };
    let known: Principal | undefined;
    try {
      known = this.verifiedBefore(req);
    } catch (err) {
      self.error(err);
      return;
    }
    if (known) self.success(known);
    else super.authenticate(req, options);
  }

  /**
   * What `authenticate` passes at once: the principal of a token verified before that
   * still holds, else undefined; throws the 401 of a revoked one. Callers that would only
   * copy the strategy for this answer (the AccessGuard) ask here first.
   */
  verifiedBefore(req: TokenRequest): Principal | undefined {
    return this.jwt.cached(req);
  }
}

/**
 * Verifies the bearer token of an Authorization header through the platform's passport-jwt
 * strategy (as the AccessGuard does, without Nest): the principal, or the 401 problem.
 */
export class TokenVerifier {
  private readonly jwt: VaultJwt;
  private readonly strategy: CachedJwtStrategy;

  constructor(
    readonly keys: JwksKeyStore,
    revocations: Pick<RevocationService, 'isRevoked'>,
    options: TokenVerifierOptions,
  ) {
    const jwt = new VaultJwt(keys, revocations, options);
    this.jwt = jwt;
    this.strategy = new CachedJwtStrategy(jwt, (req, payload, done) => {
      try {
        done(null, jwt.validate(req as TokenRequest, payload));
      } catch (err) {
        done(err, false);
      }
    });
  }

  authenticate(authorization: string | undefined): Promise<Principal> {
    const req = { headers: { authorization } } as unknown as Request;
    return new Promise((resolve, reject) => {
      // A copy per request: passport adds success/fail/error to the object it is given.
      const run = passport.authenticate(
        Object.create(this.strategy) as CachedJwtStrategy,
        { session: false },
        (err: unknown, user: Principal | false, info: unknown) => {
          if (err) reject(err);
          else if (user) resolve(user);
          else reject(bearerRefusal(info, authorization));
        },
      ) as (req: Request, res: unknown, next: (err?: unknown) => void) => void;
      run(req, {}, (err) => reject(err ?? new Error('the strategy passed the request on')));
    });
  }
}

/**
 * The platform's bearer-token strategy as a Nest provider, registered with passport as
 * `vault-jwt` (the AccessGuard runs it), on the developer module's JWKS at AUTH_JWKS_URL;
 * its key refresh runs while the app does.
 */
@Injectable()
export class JwtStrategy
  extends PassportStrategy(CachedJwtStrategy, VAULT_JWT_STRATEGY)
  implements OnModuleInit, OnApplicationShutdown
{
  constructor(env: ServiceEnv, revocations: RevocationService) {
    super(
      new VaultJwt(new JwksKeyStore(env.AUTH_JWKS_URL), revocations, {
        issuer: env.AUTH_ISSUER,
        audience: env.AUTH_AUDIENCE,
      }),
    );
  }

  validate(req: TokenRequest, payload: unknown): Principal {
    return this.jwt.validate(req, payload);
  }

  onModuleInit(): void {
    this.jwt.keys.start();
  }

  onApplicationShutdown(): void {
    this.jwt.keys.stop();
  }
}
