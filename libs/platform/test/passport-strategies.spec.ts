import { Controller, Get, Injectable, Module, Req } from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { PassportStrategy } from '@nestjs/passport';
import { Test } from '@nestjs/testing';
import { Logger, type INestApplication } from '@nestjs/common';
import { DEFAULT_TOKEN_AUDIENCE, type Principal } from '@vault/contracts';
import type { Request } from 'express';
import passport from 'passport';
import { Strategy as PassportBase } from 'passport-strategy';
import request from 'supertest';
import { Authenticated, Public } from '../src/auth/access.decorators';
import { AccessGuard, AUTH_STRATEGIES } from '../src/auth/access.guard';
import { JwksKeyStore } from '../src/auth/jwks-key-store';
import { CachedJwtStrategy, JwtStrategy, VAULT_JWT_STRATEGY } from '../src/auth/jwt.strategy';
import { TokenRequest, VaultJwt } from '../src/auth/vault-jwt';
import { problemFilterProviders } from '../src/bootstrap/platform.module';
import { AccessLogLine } from '../src/observability/access-log';
import { useHttpMetrics } from '../src/observability/http-metrics';
import { TestIdentityProvider, TEST_ISSUER } from '../src/testing';

/** A strategy another platform team plugs in: a static API key names a service principal. */
class ApiKeyStrategyBase extends PassportBase {
  override authenticate(req: Request): void {
    const self = this as unknown as { success(u: Principal): void; fail(c: unknown): void };
    if (req.headers['x-api-key'] === 'key-of-the-batch-job') {
      self.success({
        openId: 'service|batch',
        tenantId: 'tenant-ops',
        clientId: 'batch',
        scopes: [],
        tokenId: 'api-key',
        expiresAt: 0,
      });
    } else self.fail(new Error('no api key'));
  }
}

@Injectable()
class ApiKeyStrategy extends PassportStrategy(ApiKeyStrategyBase, 'api-key') {
  validate(): never {
    throw new Error('not used: the strategy authenticates by itself');
  }
}

@Controller('things')
class ThingsController {
  @Get()
  @Authenticated()
  who(@Req() req: Request & { user: Principal }) {
    return { openId: req.user.openId, tenantId: req.user.tenantId };
  }

  @Get('open')
  @Public()
  open() {
    return { ok: true };
  }
}

/**
 * The AccessGuard runs the passport strategies AUTH_STRATEGIES names, in order: the
 * platform's passport-jwt strategy on its key store, and one an app plugs beside it.
 */
describe('passport strategies behind the AccessGuard', () => {
  let idp: TestIdentityProvider;
  let keys: JwksKeyStore;
  let app: INestApplication;
  /** Token ids revoked so far (the RevocationService of a service). */
  const revoked = new Set<string>();

  beforeAll(async () => {
    Logger.overrideLogger(false);
    idp = await TestIdentityProvider.start();
    keys = new JwksKeyStore(idp.jwksUrl);
    keys.start();
    const jwt = new VaultJwt(
      keys,
      { isRevoked: (jti) => revoked.has(jti) },
      { issuer: TEST_ISSUER, audience: DEFAULT_TOKEN_AUDIENCE },
    );
    const strategy = new CachedJwtStrategy(jwt, (req, payload, done) => {
      try {
        done(null, jwt.validate(req as TokenRequest, payload));
      } catch (err) {
        done(err, false);
      }
    });
    passport.use(VAULT_JWT_STRATEGY, strategy);
    @Module({
      controllers: [ThingsController],
      providers: [
        Reflector,
        ApiKeyStrategy,
        { provide: AUTH_STRATEGIES, useValue: [VAULT_JWT_STRATEGY, 'api-key'] },
        // what PlatformModule provides: the platform's strategy, which the guard asks first
        { provide: JwtStrategy, useValue: strategy },
        { provide: APP_GUARD, useClass: AccessGuard },
        ...problemFilterProviders(),
      ],
    })
    class TestModule {}
    const moduleRef = await Test.createTestingModule({ imports: [TestModule] }).compile();
    app = moduleRef.createNestApplication();
    useHttpMetrics(app);
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
    keys?.stop();
    await idp?.stop();
  });

  it('authenticates by the bearer token, or by the plugged strategy, else refuses with the bearer challenge', async () => {
    const http = () => request(app.getHttpServer());
    const token = await idp.token({ sub: 'vault|u-1', tid: 'tenant-a' });
    await http()
      .get('/things')
      .set('authorization', `Bearer ${token}`)
      .expect(200, { openId: 'vault|u-1', tenantId: 'tenant-a' });
    // the same token again: the remembered verification, same principal
    await http()
      .get('/things')
      .set('authorization', `Bearer ${token}`)
      .expect(200, { openId: 'vault|u-1', tenantId: 'tenant-a' });
    await http()
      .get('/things')
      .set('x-api-key', 'key-of-the-batch-job')
      .expect(200, { openId: 'service|batch', tenantId: 'tenant-ops' });

    const none = await http().get('/things').expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="vault"');
    const bad = await http().get('/things').set('authorization', 'Bearer not.a.token').set('x-api-key', 'wrong').expect(401);
    expect(bad.headers['www-authenticate']).toBe(
      'Bearer realm="vault", error="invalid_token", error_description="A valid access token is required."',
    );
    const expired = await idp.token({ expiresIn: -10 });
    const old = await http().get('/things').set('authorization', `Bearer ${expired}`).expect(401);
    expect(old.body).toMatchObject({ status: 401, detail: 'The access token has expired.' });
    await http().get('/things/open').expect(200, { ok: true });
  });

  it('passes a token verified before without passport, and refuses it there once revoked', async () => {
    const http = () => request(app.getHttpServer());
    const token = await idp.token({ sub: 'vault|u-3', tid: 'tenant-c' });
    const jti = (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { jti: string }).jti;
    const runs = jest.spyOn(passport, 'authenticate');
    try {
      await http()
        .get('/things')
        .set('authorization', `Bearer ${token}`)
        .expect(200, { openId: 'vault|u-3', tenantId: 'tenant-c' });
      expect(runs).toHaveBeenCalledTimes(1);
      await http()
        .get('/things')
        .set('authorization', `Bearer ${token}`)
        .expect(200, { openId: 'vault|u-3', tenantId: 'tenant-c' });
      expect(runs).toHaveBeenCalledTimes(1);
      revoked.add(jti);
      const refused = await http().get('/things').set('authorization', `Bearer ${token}`).expect(401);
      expect(refused.body).toMatchObject({ status: 401, detail: 'The access token has been revoked.' });
      expect(refused.headers['www-authenticate']).toBe(
        'Bearer realm="vault", error="invalid_token", error_description="The access token has been revoked."',
      );
      expect(runs).toHaveBeenCalledTimes(1);
      // another caller's token still goes through passport the first time
      const other = await idp.token({ sub: 'vault|u-4', tid: 'tenant-c' });
      await http()
        .get('/things')
        .set('authorization', `Bearer ${other}`)
        .expect(200, { openId: 'vault|u-4', tenantId: 'tenant-c' });
      expect(runs).toHaveBeenCalledTimes(2);
    } finally {
      runs.mockRestore();
    }
  });

  it("names the verified caller's tenant and the route template in the access log", async () => {
    const lines: AccessLogLine[] = [];
    const spy = jest.spyOn(Logger.prototype, 'log').mockImplementation((message: unknown) => {
      if (message instanceof AccessLogLine) lines.push(message);
    });
    try {
      const token = await idp.token({ sub: 'vault|u-2', tid: 'tenant-logged' });
      await request(app.getHttpServer()).get('/things?secret=QUERY-SECRET').set('authorization', `Bearer ${token}`).expect(200);
      await request(app.getHttpServer()).get('/things').expect(401);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      spy.mockRestore();
    }
    expect(lines.map((l) => l.toJSON())).toEqual([
      expect.objectContaining({ method: 'GET', route: '/things', status: 200, tenant: 'tenant-logged' }),
      expect.objectContaining({ method: 'GET', route: '/things', status: 401, tenant: undefined }),
    ]);
    expect(lines.join('\n')).not.toContain('QUERY-SECRET');
  });
});
