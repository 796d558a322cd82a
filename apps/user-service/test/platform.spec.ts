import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { badTokens, bootTestApp, createTestDatabase, TestDatabase, TestIdentityProvider } from '@vault/platform/testing';
import { AppModule } from '../src/app/app.module';
import { deleteAccountStream, uniqueNamespace } from './support';

describe('user-service platform wiring', () => {
  let db: TestDatabase;
  let idp: TestIdentityProvider;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase('user_platform');
    idp = await TestIdentityProvider.start();
    app = await bootTestApp(AppModule, {
      DATABASE_URL: db.url,
      ...idp.env(),
      EVENTS_NAMESPACE: uniqueNamespace('user_platform'),
    });
  });
  afterAll(async () => {
    if (app) await deleteAccountStream(app);
    await app?.close();
    await idp?.stop();
    await db?.drop();
  });

  it('reports live and ready', async () => {
    await request(app.getHttpServer()).get('/health/live').expect(200, { status: 'ok' });
    const ready = await request(app.getHttpServer()).get('/health/ready').expect(200);
    expect(ready.body.info).toMatchObject({ database: { status: 'up' }, nats: { status: 'up' } });
  });

  it('answers unknown routes with a problem body', async () => {
    const res = await request(app.getHttpServer()).get('/api/v1/nope').expect(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, code: 'not_found' });
    expect(res.body.requestId).toEqual(res.headers['x-request-id']);
  });

  it('serves its OpenAPI description', async () => {
    const res = await request(app.getHttpServer()).get('/api/v1/openapi.json').expect(200);
    expect(res.body.openapi).toMatch(/^3\./);
  });

  it('has bad tokens', async () => {
    expect(Object.keys(await badTokens(idp))).toHaveLength(9);
  });

  it('keeps valid tokens working through a flood of unknown-kid tokens, with no JWKS fetch for them', async () => {
    const valid = await idp.token();
    // the account does not exist: 404 proves the token passed the guard
    const path = '/api/v1/accounts/account-id/00000000-0000-4000-8000-000000000000';
    await request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${valid}`).expect(404);
    const fetchesBefore = idp.jwksFetches;
    const flood = await Promise.all(Array.from({ length: 300 }, () => idp.unpublishedToken()));
    for (let i = 0; i < flood.length; i += 50) {
      const statuses = await Promise.all(
        flood
          .slice(i, i + 50)
          .map(async (t) => (await request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${t}`)).status),
      );
      expect(new Set(statuses)).toEqual(new Set([401]));
      await request(app.getHttpServer()).get(path).set('Authorization', `Bearer ${valid}`).expect(404);
    }
    // within the 30 s cooldown after the start-up fetch, unknown kids cost no fetch at all
    expect(idp.jwksFetches - fetchesBefore).toBeLessThanOrEqual(1);
  });
});
