import { randomUUID } from 'node:crypto';
import { auth, createAccount, fieldsOf, fullAccount, startUserService, UserService } from './support';

const A = '/api/v1/accounts';

const SETTINGS = {
  notificationMethod: 'sms',
  communicationLanguage: 'es-US',
  preferredLanguage: 'fr-CA',
  country: 'MX',
  mfaDisabled: true,
  mfaMode: 'everyTime',
};

describe('user-service emails, phones, settings and agreements', () => {
  let svc: UserService;
  let token: string;
  let id: string;
  let stranger: string;

  beforeAll(async () => {
    svc = await startUserService('user_parts');
    stranger = await svc.token();
  });
  beforeEach(async () => {
    token = await svc.token();
    id = await createAccount(svc, token, fullAccount({ emails: [{ address: 'first@example.com', primary: true }] }));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  describe('emails', () => {
    it('POST adds an address (201, full account); a new primary demotes the previous one', async () => {
      const res = await svc
        .http()
        .post(`${A}/account-id/${id}/email`)
        .set(auth(token))
        .send({ address: 'second@example.com', primary: true, verified: false })
        .expect(201);
      expect(res.body.id).toBe(id);
      expect(res.body.emails).toEqual([
        { _id: expect.any(String), address: 'first@example.com', primary: false, verified: false },
        { _id: expect.any(String), address: 'second@example.com', primary: true, verified: false },
      ]);
      expect(res.body.emails[0]._id).not.toBe(res.body.emails[1]._id);
    });

    it('POST answers 409 for an address the account has (case-insensitive)', async () => {
      const res = await svc
        .http()
        .post(`${A}/account-id/${id}/email`)
        .set(auth(token))
        .send({ address: 'FIRST@example.com' })
        .expect(409);
      expect(res.body.code).toBe('email_exists');
    });

    it('POST answers 400 per rule', async () => {
      for (const [body, field] of [
        [{}, 'address'],
        [{ address: 'nope' }, 'address'],
        [{ address: 'a@example.com', primary: 'true' }, 'primary'],
        [{ address: 'a@example.com', verified: 1 }, 'verified'],
        [{ address: 'a@example.com', label: 'home' }, 'label'],
      ] as Array<[object, string]>) {
        const res = await svc.http().post(`${A}/account-id/${id}/email`).set(auth(token)).send(body);
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expect(fieldsOf(res.body)).toContain(field);
      }
    });

    it('DELETE removes an address by URL-encoded value (200, full account); 404 when absent', async () => {
      await svc.http().post(`${A}/account-id/${id}/email`).set(auth(token)).send({ address: 'x+y@example.com' }).expect(201);
      const res = await svc
        .http()
        .delete(`${A}/account-id/${id}/email/email-address/${encodeURIComponent('x+y@example.com')}`)
        .set(auth(token))
        .expect(200);
      expect(res.body.emails.map((e: { address: string }) => e.address)).toEqual(['first@example.com']);
      const again = await svc
        .http()
        .delete(`${A}/account-id/${id}/email/email-address/${encodeURIComponent('x+y@example.com')}`)
        .set(auth(token))
        .expect(404);
      expect(again.body.code).toBe('not_found');
    });

    it('answers 404 for another identity’s account', async () => {
      await svc.http().post(`${A}/account-id/${id}/email`).set(auth(stranger)).send({ address: 'z@example.com' }).expect(404);
      await svc.http().delete(`${A}/account-id/${id}/email/email-address/first%40example.com`).set(auth(stranger)).expect(404);
      const mine = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token))).body;
      expect(mine.emails).toHaveLength(1);
    });

    it('keeps both of two concurrent additions', async () => {
      await Promise.all(
        ['c1@example.com', 'c2@example.com', 'c3@example.com'].map((address) =>
          svc.http().post(`${A}/account-id/${id}/email`).set(auth(token)).send({ address }).expect(201),
        ),
      );
      const mine = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token))).body;
      expect(mine.emails).toHaveLength(4);
    });
  });

  describe('phones', () => {
    it('POST adds a number (201, full account); DELETE removes it (200); 404 when absent', async () => {
      const added = await svc
        .http()
        .post(`${A}/account-id/${id}/phone`)
        .set(auth(token))
        .send({ number: 5145550199, ext: 22, mobile: false, primary: true })
        .expect(201);
      expect(added.body.phones).toEqual([
        { _id: expect.any(String), number: 6135550100, ext: 1, mobile: true, primary: false, verified: false },
        { _id: expect.any(String), number: 5145550199, ext: 22, mobile: false, primary: true, verified: false },
      ]);
      const removed = await svc.http().delete(`${A}/account-id/${id}/phone/phone-number/5145550199`).set(auth(token)).expect(200);
      expect(removed.body.phones.map((p: { number: number }) => p.number)).toEqual([6135550100]);
      await svc.http().delete(`${A}/account-id/${id}/phone/phone-number/5145550199`).set(auth(token)).expect(404);
    });

    it('POST answers 409 for a number the account has', async () => {
      const res = await svc
        .http()
        .post(`${A}/account-id/${id}/phone`)
        .set(auth(token))
        .send({ number: 6135550100, ext: 9, mobile: true })
        .expect(409);
      expect(res.body.code).toBe('phone_exists');
    });

    it('POST answers 400 per rule; DELETE answers 400 for a number that is not digits', async () => {
      for (const [body, field] of [
        [{ ext: 1, mobile: true }, 'number'],
        [{ number: '6135550100', ext: 1, mobile: true }, 'number'],
        [{ number: 1.5, ext: 1, mobile: true }, 'number'],
        [{ number: -1, ext: 1, mobile: true }, 'number'],
        [{ number: 1, mobile: true }, 'ext'],
        [{ number: 1, ext: '1', mobile: true }, 'ext'],
        [{ number: 1, ext: 1 }, 'mobile'],
        [{ number: 1, ext: 1, mobile: 'yes' }, 'mobile'],
        [{ number: 1, ext: 1, mobile: true, country: 'CA' }, 'country'],
      ] as Array<[object, string]>) {
        const res = await svc.http().post(`${A}/account-id/${id}/phone`).set(auth(token)).send(body);
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expect(fieldsOf(res.body)).toContain(field);
      }
      const res = await svc.http().delete(`${A}/account-id/${id}/phone/phone-number/abc`).set(auth(token)).expect(400);
      expect(fieldsOf(res.body)).toEqual(['number']);
    });

    it('answers 404 for another identity’s account', async () => {
      await svc
        .http()
        .post(`${A}/account-id/${id}/phone`)
        .set(auth(stranger))
        .send({ number: 1, ext: 1, mobile: true })
        .expect(404);
      await svc.http().delete(`${A}/account-id/${id}/phone/phone-number/6135550100`).set(auth(stranger)).expect(404);
    });
  });

  describe('settings', () => {
    it('GET answers the settings with id, account and timestamps', async () => {
      const res = await svc.http().get(`${A}/account-id/${id}/settings`).set(auth(token)).expect(200);
      expect(res.body).toEqual({
        id: expect.any(String),
        _id: res.body.id,
        account: id,
        ...(fullAccount()['settings'] as object),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        __v: 1,
      });
    });

    it('PUT replaces the six fields (echoes ignored) and answers the settings', async () => {
      const before = (await svc.http().get(`${A}/account-id/${id}/settings`).set(auth(token))).body;
      const res = await svc
        .http()
        .put(`${A}/account-id/${id}/settings`)
        .set(auth(token))
        .send({ ...before, ...SETTINGS, account: 'forged', id: 'forged' })
        .expect(200);
      expect(res.body).toMatchObject({ ...SETTINGS, id: before.id, account: id, createdAt: before.createdAt, __v: 2 });
      const after = (await svc.http().get(`${A}/account-id/${id}/settings`).set(auth(token))).body;
      expect(after).toEqual(res.body);
    });

    it('PUT answers 400 for each missing or invalid field', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        ...Object.keys(SETTINGS).map((k): [Record<string, unknown>, string] => [{ ...SETTINGS, [k]: undefined }, k]),
        [{ ...SETTINGS, notificationMethod: 'fax' }, 'notificationMethod'],
        [{ ...SETTINGS, communicationLanguage: 'en' }, 'communicationLanguage'],
        [{ ...SETTINGS, preferredLanguage: 'fr-FR' }, 'preferredLanguage'],
        [{ ...SETTINGS, country: 'ca' }, 'country'],
        [{ ...SETTINGS, mfaDisabled: 'false' }, 'mfaDisabled'],
        [{ ...SETTINGS, mfaMode: 'sometime' }, 'mfaMode'],
        [{ ...SETTINGS, theme: 'dark' }, 'theme'],
      ];
      for (const [body, field] of cases) {
        const res = await svc.http().put(`${A}/account-id/${id}/settings`).set(auth(token)).send(body);
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expect(fieldsOf(res.body)).toEqual([field]);
      }
    });

    it('answers 404 for another identity’s account', async () => {
      await svc.http().get(`${A}/account-id/${id}/settings`).set(auth(stranger)).expect(404);
      await svc.http().put(`${A}/account-id/${id}/settings`).set(auth(stranger)).send(SETTINGS).expect(404);
      await svc.http().get(`${A}/account-id/${randomUUID()}/settings`).set(auth(token)).expect(404);
    });
  });

  describe('agreements', () => {
    it('POST appends (200 {id}); GET reports the newest per type, version as a string', async () => {
      const first = await svc
        .http()
        .post(`${A}/account-id/${id}/agreements`)
        .set(auth(token))
        .send({ locale: 'en-CA', type: 'privacy_policies', version: 1, consent: true })
        .expect(200);
      expect(Object.keys(first.body)).toEqual(['id']);
      const second = await svc
        .http()
        .post(`${A}/account-id/${id}/agreements`)
        .set(auth(token))
        .send({ locale: 'fr-CA', type: 'privacy_policies', version: 2.1, consent: false })
        .expect(200);
      await svc
        .http()
        .post(`${A}/account-id/${id}/agreements`)
        .set(auth(token))
        .send({ locale: 'en-US', type: 'anti_spam', version: 3, consent: true })
        .expect(200);
      const list = (await svc.http().get(`${A}/account-id/${id}/agreements`).set(auth(token)).expect(200)).body;
      expect(list).toHaveLength(3);
      const byType = Object.fromEntries(list.map((g: { type: string }) => [g.type, g]));
      expect(byType['privacy_policies']).toEqual({
        id: second.body.id,
        _id: second.body.id,
        account: id,
        locale: 'fr-CA',
        type: 'privacy_policies',
        version: '2.1',
        consent: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(byType['tos']).toMatchObject({ version: '1', consent: true });
      expect(byType['anti_spam']).toMatchObject({ version: '3', locale: 'en-US' });
    });

    it('POST answers 400 for each missing or invalid field', async () => {
      const ok = { locale: 'en-CA', type: 'tos', version: 2, consent: true };
      const cases: Array<[Record<string, unknown>, string]> = [
        ...Object.keys(ok).map((k): [Record<string, unknown>, string] => [{ ...ok, [k]: undefined }, k]),
        [{ ...ok, locale: 'es-ES' }, 'locale'],
        [{ ...ok, type: 'cookies' }, 'type'],
        [{ ...ok, version: '2' }, 'version'],
        [{ ...ok, version: -1 }, 'version'],
        [{ ...ok, consent: 'yes' }, 'consent'],
        [{ ...ok, signedBy: 'me' }, 'signedBy'],
      ];
      for (const [body, field] of cases) {
        const res = await svc.http().post(`${A}/account-id/${id}/agreements`).set(auth(token)).send(body);
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expect(fieldsOf(res.body)).toContain(field);
      }
      const list = (await svc.http().get(`${A}/account-id/${id}/agreements`).set(auth(token))).body;
      expect(list).toHaveLength(1);
    });

    it('answers 404 for another identity’s account', async () => {
      await svc.http().get(`${A}/account-id/${id}/agreements`).set(auth(stranger)).expect(404);
      await svc
        .http()
        .post(`${A}/account-id/${id}/agreements`)
        .set(auth(stranger))
        .send({ locale: 'en-CA', type: 'tos', version: 2, consent: true })
        .expect(404);
    });
  });
});
