import { INestApplication } from '@nestjs/common';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { bootTestApp } from '@vault/platform/testing';
import { AppModule } from '../src/app/app.module';
import { auth, createAccount, fullAccount, startUserService, UserService } from './support';

const A = '/api/v1/accounts';
const SEND = { type: 'email', notificationType: 'mfaEmail' };

function eml(dir: string, to: string): string {
  const texts = readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => readFileSync(join(dir, f), 'utf8').replace(/=\r?\n/g, ''));
  const found = texts.find((t) => t.includes(`To: ${to}`));
  if (!found) throw new Error(`no mail to ${to} in ${dir}`);
  return found;
}

describe('user-service messages in local mode (no SMTP_URL)', () => {
  let svc: UserService;

  beforeAll(async () => {
    svc = await startUserService('user_local');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('writes mail as .eml files in MAIL_DIR (MFA codes and invitations)', async () => {
    const token = await svc.token();
    const id = await createAccount(svc, token, fullAccount({ emails: [{ address: 'local.dev@example.com', primary: true }] }));
    await svc.http().post(`${A}/account-id/${id}/mfa`).set(auth(token)).send(SEND).expect(201);
    const code = /code is ([0-9]{6})/.exec(eml(svc.mailDir, 'local.dev@example.com'))?.[1] as string;
    await svc.http().get(`${A}/account-id/${id}/mfa/mfa-code/${code}`).set(auth(token)).expect(200, { msg: 'validated' });

    await svc.http().post(`${A}/invitations`).set(auth(token)).send({ email: 'friend@example.com' }).expect(201);
    const invitation = /invitation code: ([A-Za-z0-9_-]{24})/.exec(eml(svc.mailDir, 'friend@example.com'))?.[1] as string;
    await createAccount(svc, await svc.token(), fullAccount({ invitationCode: invitation }));
  });

  describe('with an SMTP server that cannot be reached', () => {
    let broken: INestApplication;
    beforeAll(async () => {
      broken = await bootTestApp(AppModule, { ...svc.env, SMTP_URL: 'smtp://127.0.0.1:9', INVITATIONS_PER_HOUR: '1' });
    });
    afterAll(async () => {
      await broken?.close();
    });

    it('answers 503 and lets the caller retry at once (the undelivered code is dropped)', async () => {
      const token = await svc.token();
      const id = await createAccount(svc, token);
      for (let i = 0; i < 2; i++) {
        const res = await request(broken.getHttpServer())
          .post(`${A}/account-id/${id}/mfa`)
          .set(auth(token))
          .send(SEND)
          .expect(503);
        expect(res.body.code).toBe('service_unavailable');
      }
    });

    it('answers 503 for an undelivered invitation and removes it (no stray code, not counted)', async () => {
      const token = await svc.token();
      for (let i = 0; i < 2; i++) {
        const res = await request(broken.getHttpServer())
          .post(`${A}/invitations`)
          .set(auth(token))
          .send({ email: 'lost.friend@example.com' });
        expect({ status: res.status, code: res.body.code }).toEqual({ status: 503, code: 'service_unavailable' });
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      const pg = new Client({ connectionString: svc.db.url });
      await pg.connect();
      try {
        const left = await pg.query('SELECT count(*)::int AS n FROM invitations WHERE email = $1', ['lost.friend@example.com']);
        expect(left.rows[0].n).toBe(0);
      } finally {
        await pg.end();
      }
    });
  });
});
