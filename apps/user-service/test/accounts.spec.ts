import { randomUUID } from 'node:crypto';
import { COUNTRY_CODES } from '@vault/contracts';
import { listRouteRules } from '@vault/platform/auth';
import { badTokens } from '@vault/platform/testing';
import { auth, createAccount, fieldsOf, fullAccount, startUserService, UserService } from './support';

const A = '/api/v1/accounts';

/** Every operation of docs/user-api.md (Endpoints) with a syntactically valid path. */
function allRoutes(id: string): Array<[string, string]> {
  return [
    ['post', A],
    ['get', `${A}/account-id/${id}`],
    ['get', `${A}/username/someone%40example.com`],
    ['get', `${A}/open-id/vault%7Cx`],
    ['get', `${A}/username/someone%40example.com/check`],
    ['put', `${A}/account-id/${id}`],
    ['delete', `${A}/account-id/${id}`],
    ['delete', `${A}/logout`],
    ['post', `${A}/invitations`],
    ['post', `${A}/account-id/${id}/mfa`],
    ['get', `${A}/account-id/${id}/mfa/mfa-code/123456`],
    ['get', `${A}/account-id/${id}/settings`],
    ['put', `${A}/account-id/${id}/settings`],
    ['get', `${A}/account-id/${id}/agreements`],
    ['post', `${A}/account-id/${id}/agreements`],
    ['post', `${A}/account-id/${id}/email`],
    ['delete', `${A}/account-id/${id}/email/email-address/a%40example.com`],
    ['post', `${A}/account-id/${id}/phone`],
    ['delete', `${A}/account-id/${id}/phone/phone-number/6135550100`],
  ];
}

describe('user-service accounts', () => {
  let svc: UserService;

  beforeAll(async () => {
    svc = await startUserService('user_accounts');
  });
  afterAll(async () => {
    await svc?.stop();
  });

  describe('routes', () => {
    it('declares an access rule on every route, and all 20 need a token', () => {
      const rules = listRouteRules(svc.app).filter((r) => r.route.includes('/accounts'));
      expect(rules).toHaveLength(20);
      for (const r of listRouteRules(svc.app)) expect(r.rule).toBeDefined();
      for (const r of rules) expect(r.rule).toBe('authenticated');
    });

    it('serves an OpenAPI description listing the 20 operations with their DTOs', async () => {
      const res = await svc.http().get('/api/v1/openapi.json').expect(200);
      const ops = Object.entries(res.body.paths as Record<string, Record<string, unknown>>)
        .filter(([path]) => path.startsWith('/accounts'))
        .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
      expect(ops).toHaveLength(20);
      expect(ops).toEqual(
        expect.arrayContaining([
          'POST /accounts',
          'GET /accounts/me',
          'DELETE /accounts/logout',
          'DELETE /accounts/account-id/{id}',
          'GET /accounts/account-id/{id}/mfa/mfa-code/{code}',
          'DELETE /accounts/account-id/{id}/phone/phone-number/{number}',
        ]),
      );
      const schemas = res.body.components.schemas;
      expect(schemas.CreateAccountDto.properties.dateOfBirth).toBeDefined();
      expect(schemas.AccountSettingsDto.required).toEqual(
        expect.arrayContaining([
          'notificationMethod',
          'communicationLanguage',
          'preferredLanguage',
          'country',
          'mfaDisabled',
          'mfaMode',
        ]),
      );
      expect(schemas.AccountSettingsDto.properties.country.enum).toEqual([...COUNTRY_CODES]);
    });

    it.each([
      'none',
      'junk',
      'algNone',
      'tampered',
      'expired',
      'wrongAudience',
      'wrongIssuer',
      'wrongAlgorithm',
      'tooOld',
      'unknownKey',
    ])('answers 401 on every route with token %s', async (kind) => {
      const bad = await badTokens(svc.idp);
      for (const [method, path] of allRoutes(randomUUID())) {
        const req = svc.http()[method as 'get'](path);
        if (kind !== 'none') req.set(auth(bad[kind]));
        const res = await req.send({});
        expect({ route: `${method} ${path}`, status: res.status }).toEqual({ route: `${method} ${path}`, status: 401 });
        expect(res.body.code).toBe('unauthorized');
      }
    });
  });

  describe('POST /accounts', () => {
    it('creates the caller’s account bound to its identity and answers 200 {id}', async () => {
      const sub = `vault|${randomUUID()}`;
      const token = await svc.token({ sub, tid: 'tenant-a' });
      const body = fullAccount();
      const res = await svc.http().post(A).set(auth(token)).send(body).expect(200);
      expect(Object.keys(res.body)).toEqual(['id']);
      const account = (await svc.http().get(`${A}/account-id/${res.body.id}`).set(auth(token)).expect(200)).body;
      expect(account).toMatchObject({
        id: res.body.id,
        active: true,
        openId: sub,
        username: body['username'],
        firstName: 'Jane',
        lastName: 'Doe',
        dateOfBirth: '1990-01-31T00:00:00.000Z',
        maritalStatus: 'single',
        gender: 'female',
        customerId: null,
        primaryResidence: { city: 'Ottawa', country: 'CA', id: expect.any(String) },
        emails: [
          {
            address: (body['emails'] as Array<{ address: string }>)[0].address,
            primary: true,
            verified: false,
            _id: expect.any(String),
          },
        ],
        phones: [{ number: 6135550100, ext: 1, mobile: true, primary: true, verified: false, _id: expect.any(String) }],
      });
      expect(new Date(account.createdAt).toISOString()).toBe(account.createdAt);
      expect(account).not.toHaveProperty('invitationCode');
    });

    it('defaults username and email from the identity and accepts the firsName/LastName spellings', async () => {
      const token = await svc.token({ username: 'ident.user@example.com', tid: 'tenant-defaults' });
      const id = await createAccount(svc, token, { firsName: 'Ann', LastName: 'Lee' });
      const account = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).expect(200)).body;
      expect(account).toMatchObject({
        username: 'ident.user@example.com',
        firstName: 'Ann',
        lastName: 'Lee',
        emails: [{ address: 'ident.user@example.com', primary: true, verified: false }],
        phones: [],
        dateOfBirth: null,
        primaryResidence: null,
      });
      const settings = (await svc.http().get(`${A}/account-id/${id}/settings`).set(auth(token)).expect(200)).body;
      expect(settings).toMatchObject({
        notificationMethod: 'email',
        communicationLanguage: 'en-US',
        preferredLanguage: 'en-US',
        country: 'US',
        mfaDisabled: false,
        mfaMode: 'sometimes',
      });
    });

    it('accepts read-only echoes and ignores them', async () => {
      const token = await svc.token();
      const id = await createAccount(
        svc,
        token,
        fullAccount({
          id: 'forged',
          _id: 'x',
          openId: 'vault|forged',
          customerId: 'cus_1',
          active: false,
          createdAt: '2000-01-01T00:00:00Z',
          updatedAt: null,
          __v: 3,
        }),
      );
      const account = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).expect(200)).body;
      expect(account.id).toBe(id);
      expect(account.openId).not.toBe('vault|forged');
      expect(account.customerId).toBeNull();
      expect(account.active).toBe(true);
      expect(account.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
    });

    it('answers 409 for a second account of the same identity', async () => {
      const token = await svc.token();
      await createAccount(svc, token);
      const res = await svc.http().post(A).set(auth(token)).send(fullAccount()).expect(409);
      expect(res.body.code).toBe('account_exists');
    });

    it('answers 409 for a username already used in the tenant (case-insensitive), not in another tenant', async () => {
      const username = `taken.${randomUUID()}@example.com`;
      await createAccount(svc, await svc.token({ tid: 'tenant-u' }), fullAccount({ username }));
      const res = await svc
        .http()
        .post(A)
        .set(auth(await svc.token({ tid: 'tenant-u' })))
        .send(fullAccount({ username: username.toUpperCase() }))
        .expect(409);
      expect(res.body.code).toBe('username_taken');
      await createAccount(svc, await svc.token({ tid: 'tenant-other' }), fullAccount({ username }));
    });

    it('answers 400 when no username is given and the identity has none', async () => {
      const token = await svc.idp.token({ sub: `vault|${randomUUID()}` });
      const res = await svc.http().post(A).set(auth(token)).send({ firstName: 'A', lastName: 'B' }).expect(400);
      expect(fieldsOf(res.body)).toEqual(['username']);
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['firstName missing', { firstName: undefined }, 'firstName'],
      ['lastName missing', { lastName: undefined }, 'lastName'],
      ['firstName empty', { firstName: '' }, 'firstName'],
      ['firstName not a string', { firstName: 12 }, 'firstName'],
      ['username empty', { username: '' }, 'username'],
      ['dateOfBirth ISO', { dateOfBirth: '1990-01-31' }, 'dateOfBirth'],
      ['dateOfBirth not a real date', { dateOfBirth: '31/02/1990' }, 'dateOfBirth'],
      ['dateOfBirth month 13', { dateOfBirth: '01/13/1990' }, 'dateOfBirth'],
      ['maritalStatus', { maritalStatus: 'engaged' }, 'maritalStatus'],
      ['gender', { gender: 'unknown' }, 'gender'],
      ['profilePhoto not a URL', { profilePhoto: 'not a url' }, 'profilePhoto'],
      ['residence country', { primaryResidence: { country: 'XX' } }, 'primaryResidence.country'],
      ['residence unknown field', { primaryResidence: { planet: 'Mars' } }, 'primaryResidence.planet'],
      ['email format', { emails: [{ address: 'not-an-email' }] }, 'emails.0.address'],
      ['email primary not boolean', { emails: [{ address: 'a@example.com', primary: 'yes' }] }, 'emails.0.primary'],
      ['emails repeated', { emails: [{ address: 'a@example.com' }, { address: 'A@example.com' }] }, 'emails'],
      [
        'two primary emails',
        {
          emails: [
            { address: 'a@example.com', primary: true },
            { address: 'b@example.com', primary: true },
          ],
        },
        'emails',
      ],
      ['phone number missing', { phones: [{ ext: 1, mobile: true }] }, 'phones.0.number'],
      ['phone number a string', { phones: [{ number: '613', ext: 1, mobile: true }] }, 'phones.0.number'],
      ['phone ext missing', { phones: [{ number: 613, mobile: true }] }, 'phones.0.ext'],
      ['phone ext not a number', { phones: [{ number: 613, ext: 'x', mobile: true }] }, 'phones.0.ext'],
      ['phone mobile missing', { phones: [{ number: 613, ext: 1 }] }, 'phones.0.mobile'],
      ['phone mobile not boolean', { phones: [{ number: 613, ext: 1, mobile: 'true' }] }, 'phones.0.mobile'],
      [
        'phones repeated',
        {
          phones: [
            { number: 613, ext: 1, mobile: true },
            { number: 613, ext: 2, mobile: false },
          ],
        },
        'phones',
      ],
      ['settings field missing', { settings: { notificationMethod: 'email' } }, 'settings.communicationLanguage'],
      [
        'settings notificationMethod',
        { settings: { ...(fullAccount()['settings'] as object), notificationMethod: 'pigeon' } },
        'settings.notificationMethod',
      ],
      [
        'settings locale',
        { settings: { ...(fullAccount()['settings'] as object), preferredLanguage: 'de-DE' } },
        'settings.preferredLanguage',
      ],
      ['settings country', { settings: { ...(fullAccount()['settings'] as object), country: 'ZZ' } }, 'settings.country'],
      ['settings mfaMode', { settings: { ...(fullAccount()['settings'] as object), mfaMode: 'always' } }, 'settings.mfaMode'],
      [
        'settings mfaDisabled',
        { settings: { ...(fullAccount()['settings'] as object), mfaDisabled: 'no' } },
        'settings.mfaDisabled',
      ],
      ['agreement type', { agreements: [{ locale: 'en-CA', type: 'eula', version: 1, consent: true }] }, 'agreements.0.type'],
      ['agreement locale', { agreements: [{ locale: 'en-GB', type: 'tos', version: 1, consent: true }] }, 'agreements.0.locale'],
      [
        'agreement version a string',
        { agreements: [{ locale: 'en-CA', type: 'tos', version: '1', consent: true }] },
        'agreements.0.version',
      ],
      ['agreement consent missing', { agreements: [{ locale: 'en-CA', type: 'tos', version: 1 }] }, 'agreements.0.consent'],
      ['unknown field', { nickname: 'JD' }, 'nickname'],
    ];
    it.each(invalid)('answers 400 naming the field: %s', async (_, change, field) => {
      const token = await svc.token();
      const body = fullAccount({ username: `invalid.${randomUUID()}@example.com`, ...change });
      const res = await svc.http().post(A).set(auth(token)).send(body).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res.body)).toContain(field);
      // nothing was created: the identity can still create its account
      await createAccount(svc, token);
    });
  });

  describe('lookups', () => {
    let token: string;
    let id: string;
    let sub: string;
    let username: string;

    beforeAll(async () => {
      sub = `vault|${randomUUID()}`;
      username = `look.up+${randomUUID().slice(0, 6)}@example.com`;
      token = await svc.token({ sub, tid: 'tenant-look' });
      id = await createAccount(svc, token, fullAccount({ username }));
    });

    it('reads the own account by id, by URL-encoded username and by openId', async () => {
      const byId = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).expect(200)).body;
      const byName = (
        await svc
          .http()
          .get(`${A}/username/${encodeURIComponent(username)}`)
          .set(auth(token))
          .expect(200)
      ).body;
      const byOpenId = (
        await svc
          .http()
          .get(`${A}/open-id/${encodeURIComponent(sub)}`)
          .set(auth(token))
          .expect(200)
      ).body;
      expect(byName).toEqual(byId);
      expect(byOpenId).toEqual(byId);
    });

    it('answers 404 for another identity’s account, in the same or another tenant', async () => {
      for (const other of [
        await svc.token({ tid: 'tenant-look' }),
        await svc.token({ tid: 'tenant-else' }),
        await svc.token({ sub, tid: 'tenant-else' }),
      ]) {
        await svc.http().get(`${A}/account-id/${id}`).set(auth(other)).expect(404);
        await svc
          .http()
          .get(`${A}/username/${encodeURIComponent(username)}`)
          .set(auth(other))
          .expect(404);
        await svc
          .http()
          .get(`${A}/open-id/${encodeURIComponent(sub)}`)
          .set(auth(other))
          .expect(404);
        await svc
          .http()
          .put(`${A}/account-id/${id}`)
          .set(auth(other))
          .send({ username, firstName: 'X', lastName: 'Y' })
          .expect(404);
      }
    });

    it('answers 404 for an unknown or malformed id, username or openId', async () => {
      await svc.http().get(`${A}/account-id/${randomUUID()}`).set(auth(token)).expect(404);
      await svc.http().get(`${A}/account-id/not-a-uuid`).set(auth(token)).expect(404);
      await svc.http().get(`${A}/username/nobody%40example.com`).set(auth(token)).expect(404);
      const res = await svc.http().get(`${A}/open-id/vault%7Cnobody`).set(auth(token)).expect(404);
      expect(res.body.code).toBe('not_found');
    });

    it('check tells an existing username (any account of the tenant) from a missing one', async () => {
      const other = await svc.token({ tid: 'tenant-look' });
      const yes = await svc
        .http()
        .get(`${A}/username/${encodeURIComponent(username.toUpperCase())}/check`)
        .set(auth(other))
        .expect(200);
      expect(yes.body).toEqual({ username: username.toUpperCase(), exists: true });
      const no = await svc.http().get(`${A}/username/free.name%40example.com/check`).set(auth(other)).expect(200);
      expect(no.body).toEqual({ username: 'free.name@example.com', exists: false });
      const elsewhere = await svc
        .http()
        .get(`${A}/username/${encodeURIComponent(username)}/check`)
        .set(auth(await svc.token({ tid: 'tenant-x' })))
        .expect(200);
      expect(elsewhere.body.exists).toBe(false);
    });
  });

  describe('PUT /accounts/account-id/{id}', () => {
    it('replaces the updatable fields, keeps ids of kept entries, leaves settings and agreements alone', async () => {
      const token = await svc.token();
      const id = await createAccount(svc, token);
      const before = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).expect(200)).body;
      const settingsBefore = (await svc.http().get(`${A}/account-id/${id}/settings`).set(auth(token))).body;
      const username = `renamed.${randomUUID()}@example.com`;
      const res = await svc
        .http()
        .put(`${A}/account-id/${id}`)
        .set(auth(token))
        .send({
          ...before,
          username,
          firsName: 'Janet',
          firstName: undefined,
          dateOfBirth: '29/02/2000',
          gender: 'other',
          maritalStatus: undefined,
          emails: [...before.emails, { address: 'second@example.com', primary: false }],
          phones: [],
          settings: { mfaMode: 'never' },
          agreements: [],
        })
        .expect(200);
      expect(res.body).toMatchObject({
        id,
        username,
        firstName: 'Janet',
        lastName: 'Doe',
        dateOfBirth: '2000-02-29T00:00:00.000Z',
        gender: 'other',
        maritalStatus: null,
        phones: [],
        openId: before.openId,
        createdAt: before.createdAt,
      });
      expect(res.body.emails).toEqual([
        before.emails[0],
        { _id: expect.any(String), address: 'second@example.com', primary: false, verified: false },
      ]);
      expect(res.body.primaryResidence.id).toBe(before.primaryResidence.id);
      expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThan(new Date(before.updatedAt).getTime());
      const settingsAfter = (await svc.http().get(`${A}/account-id/${id}/settings`).set(auth(token))).body;
      expect(settingsAfter).toEqual(settingsBefore);
      expect(
        (
          await svc
            .http()
            .get(`${A}/username/${encodeURIComponent(username)}`)
            .set(auth(token))
            .expect(200)
        ).body.id,
      ).toBe(id);
    });

    it('answers 400 per rule: required username, names, email addresses, phone fields; unknown fields', async () => {
      const token = await svc.token();
      const id = await createAccount(svc, token);
      const base = { username: `u.${randomUUID()}@example.com`, firstName: 'A', lastName: 'B' };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...base, username: undefined }, 'username'],
        [{ ...base, firstName: undefined }, 'firstName'],
        [{ ...base, lastName: undefined }, 'lastName'],
        [{ ...base, emails: [{ primary: true }] }, 'emails.0.address'],
        [{ ...base, emails: [{ address: 'bad' }] }, 'emails.0.address'],
        [{ ...base, phones: [{ ext: 1, mobile: true }] }, 'phones.0.number'],
        [{ ...base, phones: [{ number: 1, mobile: true }] }, 'phones.0.ext'],
        [{ ...base, phones: [{ number: 1, ext: 1 }] }, 'phones.0.mobile'],
        [{ ...base, dateOfBirth: '1/1/2000' }, 'dateOfBirth'],
        [{ ...base, gender: 'x' }, 'gender'],
        [{ ...base, role: 'admin' }, 'role'],
      ];
      for (const [body, field] of cases) {
        const res = await svc.http().put(`${A}/account-id/${id}`).set(auth(token)).send(body);
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expect(fieldsOf(res.body)).toContain(field);
      }
    });

    it('answers 409 when the new username belongs to another account of the tenant', async () => {
      const taken = `other.${randomUUID()}@example.com`;
      await createAccount(svc, await svc.token(), fullAccount({ username: taken }));
      const token = await svc.token();
      const id = await createAccount(svc, token);
      const res = await svc
        .http()
        .put(`${A}/account-id/${id}`)
        .set(auth(token))
        .send({ username: taken, firstName: 'A', lastName: 'B' })
        .expect(409);
      expect(res.body.code).toBe('username_taken');
    });
  });
});
