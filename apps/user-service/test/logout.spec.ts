import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { bootTestApp } from '@vault/platform/testing';
import { AppModule } from '../src/app/app.module';
import { auth, createAccount, startUserService, UserService } from './support';

const A = '/api/v1/accounts';

/**
 * Logout revokes the token on every module: the second instance booted here
 * stands for any other service (all share the platform's revocation watch).
 */
describe('user-service logout', () => {
  let svc: UserService;
  let other: INestApplication;

  beforeAll(async () => {
    svc = await startUserService('user_logout');
    other = await bootTestApp(AppModule, svc.env);
  });
  afterAll(async () => {
    await other?.close();
    await svc?.stop();
  });

  /** Polls until the instance answers `status` for the token (at most `ms`), resolving with the ms it took. */
  async function until(app: INestApplication, token: string, path: string, status: number, ms: number) {
    const started = Date.now();
    for (;;) {
      const res = await request(app.getHttpServer()).get(path).set(auth(token));
      if (res.status === status) return Date.now() - started;
      if (Date.now() - started > ms) throw new Error(`still ${res.status} after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('revokes the presented token here and, through its revocation watch, on another instance, also after a restart', async () => {
    const sub = `vault|logout-${Date.now()}`;
    const token = await svc.token({ sub });
    const id = await createAccount(svc, token);
    const path = `${A}/account-id/${id}`;
    await request(other.getHttpServer()).get(path).set(auth(token)).expect(200);

    const res = await svc.http().delete(`${A}/logout`).set(auth(token)).expect(200);
    expect(res.text).toBe('');

    await svc.http().get(path).set(auth(token)).expect(401);
    // the other instance learns it from its watch, not from a restart; how fast is the
    // benchmarks' matter (a bound here would measure the CI machine's load)
    await until(other, token, path, 401, 10_000);
    const refused = await request(other.getHttpServer()).get(path).set(auth(token)).expect(401);
    expect(refused.body.detail).toMatch(/revoked/);
    await svc.http().delete(`${A}/logout`).set(auth(token)).expect(401);

    await other.close();
    other = await bootTestApp(AppModule, svc.env);
    await request(other.getHttpServer()).get(path).set(auth(token)).expect(401);

    const fresh = await svc.token({ sub });
    await svc.http().get(path).set(auth(fresh)).expect(200);
    await request(other.getHttpServer()).get(path).set(auth(fresh)).expect(200);
  });

  it('revokes only the presented token', async () => {
    const sub = `vault|logout-two-${Date.now()}`;
    const first = await svc.token({ sub });
    const second = await svc.token({ sub });
    const id = await createAccount(svc, first);
    await svc.http().delete(`${A}/logout`).set(auth(first)).expect(200);
    await svc.http().get(`${A}/account-id/${id}`).set(auth(first)).expect(401);
    await svc.http().get(`${A}/account-id/${id}`).set(auth(second)).expect(200);
  });
});
