import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { passportJwtSecret } from 'jwks-rsa';
import {
  AccessTokenClaims,
  Principal,
  TOKEN_SIGNING_ALGORITHM,
} from '@vault/contracts';
import { ServiceEnv } from '../config/env';
import { ProblemException } from '../errors/problem.exception';
import { RevocationService } from './revocation.service';

/**
 * Verifies bearer tokens against the developer module's JWKS (cached, rate
 * limited), with the algorithm pinned and issuer, audience and expiry checked.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    env: ServiceEnv,
    private readonly revocations: RevocationService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKeyProvider: passportJwtSecret({
        jwksUri: env.AUTH_JWKS_URL,
        cache: true,
        cacheMaxAge: 10 * 60 * 1000,
        rateLimit: true,
        jwksRequestsPerMinute: 10,
      }),
      algorithms: [TOKEN_SIGNING_ALGORITHM],
      issuer: env.AUTH_ISSUER,
      audience: env.AUTH_AUDIENCE,
      ignoreExpiration: false,
      // Tokens never live longer than revocation entries do, whatever the issuer says.
      jsonWebTokenOptions: { maxAge: '24h' },
    });
  }

  validate(claims: AccessTokenClaims): Principal {
    if (!claims.sub || !claims.tid || !claims.jti || !claims.exp) {
      throw ProblemException.unauthorized('The access token lacks required claims.');
    }
    if (this.revocations.isRevoked(claims.jti)) {
      throw ProblemException.unauthorized('The access token has been revoked.');
    }
    return {
      openId: claims.sub,
      tenantId: claims.tid,
      clientId: claims.cid,
      username: claims.preferred_username,
      scopes: (claims.scope ?? '').split(' ').filter(Boolean),
      tokenId: claims.jti,
      expiresAt: claims.exp,
    };
  }
}
