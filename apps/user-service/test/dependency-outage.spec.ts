import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { bootTestApp, TEST_ADMIN_URL, TestNatsServer } from '@vault/platform/testing';
import { AppModule } from '../src/app/app.module';
import { auth, createAccount, SHARED_NATS_URL, startUserService, until, UserService } from './support';
import { TcpProxy } from './tcp-proxy';

const A = '/api/v1/accounts';
const readyStatus = async (app: INestApplication) => (await request(app.getHttpServer()).get('/health/ready')).status;

/**
 * Dependencies going down under a running user-service: a private nats-server
 * that is stopped and started again, and PostgreSQL behind a relay that is cut.
 */
describe('user-service when a dependency is down', () => {
  describe('NATS outage', () => {
    let nats: TestNatsServer;
    let svc: UserService;
    let other: INestApplication;

    beforeAll(async () => {
      nats = await TestNatsServer.start();
      svc = await startUserService('user_nats_outage', { NATS_URL: nats.url });
      other = await bootTestApp(AppModule, svc.env);
    });
    afterAll(async () => {
      await other?.close();
      await svc?.stop();
      await nats?.dispose();
    });

    it('answers logout with 503 and Retry-After while NATS is down (token still valid), is not ready, and revokes after recovery', async () => {
      const token = await svc.token();
      const id = await createAccount(svc, token);
      const path = `${A}/account-id/${id}`;
      expect(await readyStatus(svc.app)).toBe(200);

      await nats.stop();
      await until(async () => (await readyStatus(svc.app)) === 503, 5000, 'not ready during the outage');
      const ready = await svc.http().get('/health/ready').expect(503);
      expect(ready.body).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(await readyStatus(other)).toBe(503);

      const started = Date.now();
      const refused = await svc.http().delete(`${A}/logout`).set(auth(token)).expect(503);
      // fails fast: no wait for the revocation write's 3 s timeout
      expect(Date.now() - started).toBeLessThan(2500);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(refused.body).toMatchObject({ status: 503, code: 'service_unavailable' });
      expect(refused.body.detail).toMatch(/still valid/);
      // nothing was revoked: the token keeps working here and elsewhere until a logout succeeds
      await svc.http().get(path).set(auth(token)).expect(200);
      await request(other.getHttpServer()).get(path).set(auth(token)).expect(200);

      await nats.restart();
      await until(async () => (await readyStatus(svc.app)) === 200, 15000, 'ready after recovery');
      await until(async () => (await readyStatus(other)) === 200, 15000, 'other ready after recovery');

      await svc.http().delete(`${A}/logout`).set(auth(token)).expect(200);
      const after = await svc.http().get(path).set(auth(token)).expect(401);
      expect(after.body.detail).toMatch(/revoked/);
      // the other instance's watch resumed after the outage and received the revocation
      await until(
        async () => (await request(other.getHttpServer()).get(path).set(auth(token))).status === 401,
        2000,
        'revocation seen by the other instance',
      );
    });
  });

  describe('database outage', () => {
    let proxy: TcpProxy;
    let svc: UserService;

    beforeAll(async () => {
      const admin = new URL(TEST_ADMIN_URL);
      proxy = new TcpProxy(admin.hostname, Number(admin.port || 5432));
      await proxy.start();
      svc = await startUserService('user_db_outage', { NATS_URL: SHARED_NATS_URL }, (url) => {
        const relayed = new URL(url);
        relayed.hostname = '127.0.0.1';
        relayed.port = String(proxy.port);
        return relayed.toString();
      });
    });
    afterAll(async () => {
      await proxy?.cut();
      await svc?.stop();
    });

    it('answers 503 with Retry-After (not 500) and is not ready while PostgreSQL cannot be reached, then recovers', async () => {
      const token = await svc.token();
      const id = await createAccount(svc, token);
      const path = `${A}/account-id/${id}`;
      await svc.http().get(path).set(auth(token)).expect(200);

      await proxy.cut();
      for (let i = 0; i < 3; i++) {
        const res = await svc.http().get(path).set(auth(token));
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.body).toMatchObject({ status: 503, code: 'service_unavailable' });
        expect(res.body.detail).not.toMatch(/ECONN|postgres|terminated/i);
      }
      const ready = await svc.http().get('/health/ready').expect(503);
      expect(ready.body).toMatchObject({ status: 503, code: 'service_unavailable' });

      await proxy.start();
      await until(async () => (await svc.http().get(path).set(auth(token))).status === 200, 10000, 'served again');
      await svc.http().get('/health/ready').expect(200);
    });
  });
});
