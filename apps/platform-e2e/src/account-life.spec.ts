import { ann, bob, call, cy, tokenFor } from '../support/client';
import { latestMailTo } from '../support/mailbox';

/** The whole account life of one identity, through the gateway (docs/user-api.md). */
describe('account life through the gateway', () => {
  let token: string;
  let id: string;
  let openId: string;

  beforeAll(async () => {
    token = await ann();
  });

  it('creates the caller account bound to the token identity', async () => {
    const res = await call('user', 'POST', '/accounts', {
      token,
      body: {
        firstName: 'Ann',
        lastName: 'Alpha',
        dateOfBirth: '31/01/1990',
        gender: 'female',
        maritalStatus: 'single',
        primaryResidence: { city: 'Ottawa', country: 'CA' },
        phones: [{ number: 6135550100, ext: 1, mobile: true, primary: true }],
        settings: {
          notificationMethod: 'email',
          communicationLanguage: 'en-CA',
          preferredLanguage: 'fr-CA',
          country: 'CA',
          mfaDisabled: false,
          mfaMode: 'sometimes',
        },
        agreements: [{ locale: 'en-CA', type: 'tos', version: 1, consent: true }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.any(String) });
    id = res.body.id;

    const again = await call('user', 'POST', '/accounts', { token, body: { firstName: 'A', lastName: 'B' } });
    expect(again.status).toBe(409);
  });

  it('reads the account three ways', async () => {
    const byId = await call('user', 'GET', `/accounts/account-id/${id}`, { token });
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({
      id,
      username: 'ann@alpha.example',
      firstName: 'Ann',
      dateOfBirth: '1990-01-31T00:00:00.000Z',
      emails: [expect.objectContaining({ address: 'ann@alpha.example', primary: true, _id: expect.any(String) })],
    });
    openId = byId.body.openId;
    expect(openId).toMatch(/^vault\|/);

    const byName = await call('user', 'GET', `/accounts/username/${encodeURIComponent('ann@alpha.example')}`, { token });
    expect(byName.body.id).toBe(id);
    const byOpenId = await call('user', 'GET', `/accounts/open-id/${encodeURIComponent(openId)}`, { token });
    expect(byOpenId.body.id).toBe(id);

    const check = await call('user', 'GET', `/accounts/username/${encodeURIComponent('ann@alpha.example')}/check`, { token });
    expect(check.body).toMatchObject({ exists: true });
  });

  it('hides the account from another identity and another tenant', async () => {
    for (const other of [await bob(), await cy()]) {
      const res = await call('user', 'GET', `/accounts/account-id/${id}`, { token: other });
      expect(res.status).toBe(404);
    }
  });

  it('refuses invalid input with the fields named', async () => {
    const res = await call('user', 'PUT', `/accounts/account-id/${id}`, {
      token,
      body: { username: 'ann@alpha.example', firstName: 'Ann', lastName: 'Alpha', dateOfBirth: '31/02/1990', gender: 'robot' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['dateOfBirth', 'gender']));
  });

  it('updates the account', async () => {
    const res = await call('user', 'PUT', `/accounts/account-id/${id}`, {
      token,
      body: {
        username: 'ann@alpha.example',
        firstName: 'Annie',
        lastName: 'Alpha',
        emails: [{ address: 'ann@alpha.example', primary: true, verified: false }],
        phones: [{ number: 6135550100, ext: 1, mobile: true, primary: true }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, firstName: 'Annie', updatedAt: expect.any(String) });
  });

  it('reads and replaces settings', async () => {
    const got = await call('user', 'GET', `/accounts/account-id/${id}/settings`, { token });
    expect(got.body).toMatchObject({ account: id, preferredLanguage: 'fr-CA', country: 'CA' });
    const put = await call('user', 'PUT', `/accounts/account-id/${id}/settings`, {
      token,
      body: {
        notificationMethod: 'sms',
        communicationLanguage: 'es-US',
        preferredLanguage: 'es-US',
        country: 'US',
        mfaDisabled: true,
        mfaMode: 'never',
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ notificationMethod: 'sms', country: 'US', mfaMode: 'never' });
    const partial = await call('user', 'PUT', `/accounts/account-id/${id}/settings`, { token, body: { country: 'US' } });
    expect(partial.status).toBe(400);
  });

  it('appends agreements and reports the newest per type', async () => {
    const post = await call('user', 'POST', `/accounts/account-id/${id}/agreements`, {
      token,
      body: { locale: 'en-CA', type: 'tos', version: 2, consent: false },
    });
    expect(post.status).toBe(200);
    expect(post.body).toEqual({ id: expect.any(String) });
    const list = await call('user', 'GET', `/accounts/account-id/${id}/agreements`, { token });
    const tos = list.body.find((a: { type: string }) => a.type === 'tos');
    expect(tos).toMatchObject({ version: '2', consent: false });
  });

  it('adds and removes emails and phones', async () => {
    const addEmail = await call('user', 'POST', `/accounts/account-id/${id}/email`, {
      token,
      body: { address: 'ann.work@alpha.example', primary: false, verified: false },
    });
    expect(addEmail.status).toBe(201);
    expect(addEmail.body.emails).toHaveLength(2);
    const dupEmail = await call('user', 'POST', `/accounts/account-id/${id}/email`, {
      token,
      body: { address: 'ANN.work@alpha.example', primary: false, verified: false },
    });
    expect(dupEmail.status).toBe(409);
    const delEmail = await call(
      'user',
      'DELETE',
      `/accounts/account-id/${id}/email/email-address/${encodeURIComponent('ann.work@alpha.example')}`,
      { token },
    );
    expect(delEmail.status).toBe(200);
    expect(delEmail.body.emails).toHaveLength(1);

    const addPhone = await call('user', 'POST', `/accounts/account-id/${id}/phone`, {
      token,
      body: { number: 6135550199, ext: 0, mobile: false, primary: false },
    });
    expect(addPhone.status).toBe(201);
    expect(addPhone.body.phones).toHaveLength(2);
    const delPhone = await call('user', 'DELETE', `/accounts/account-id/${id}/phone/phone-number/6135550199`, { token });
    expect(delPhone.status).toBe(200);
    expect(delPhone.body.phones).toHaveLength(1);
    const missing = await call('user', 'DELETE', `/accounts/account-id/${id}/phone/phone-number/6135550199`, { token });
    expect(missing.status).toBe(404);
  });

  it('runs the MFA round trip with the code from the mail', async () => {
    const since = Date.now() - 1000;
    const send = await call('user', 'POST', `/accounts/account-id/${id}/mfa`, {
      token,
      body: { type: 'email', notificationType: 'mfaEmail', locale: 'en-CA' },
    });
    expect(send.status).toBe(201);
    expect(send.body).toEqual({});
    const mail = await latestMailTo('ann@alpha.example', since);
    const code = /\b(\d{6})\b/.exec(mail.replace(/=\r?\n/g, ''))?.[1];
    expect(code).toMatch(/^\d{6}$/);
    const wrong = String((Number(code) + 1) % 1000000).padStart(6, '0');
    expect((await call('user', 'GET', `/accounts/account-id/${id}/mfa/mfa-code/${wrong}`, { token })).status).toBe(400);
    const ok = await call('user', 'GET', `/accounts/account-id/${id}/mfa/mfa-code/${code}`, { token });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ msg: expect.any(String) });
    const reused = await call('user', 'GET', `/accounts/account-id/${id}/mfa/mfa-code/${code}`, { token });
    expect(reused.status).toBe(400);
  });

  it('sends an invitation whose code opens an account once', async () => {
    const since = Date.now() - 1000;
    const res = await call('user', 'POST', '/accounts/invitations', {
      token,
      body: { email: 'bob@alpha.example', firstName: 'Bob' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toBe(true);
    const mail = (await latestMailTo('bob@alpha.example', since)).replace(/=\r?\n/g, '');
    const bobToken = await bob();
    const codes = mail.match(/[A-Za-z0-9_-]{24}/g) ?? [];
    let created = 0;
    for (const code of codes) {
      const attempt = await call('user', 'POST', '/accounts', {
        token: bobToken,
        body: { firstName: 'Bob', lastName: 'Beta', invitationCode: code },
      });
      if (attempt.status === 200) created++;
    }
    expect(created).toBe(1);
  });

  it('logs out: the token dies on every module, a new token works', async () => {
    const session = await tokenFor('alpha', 'alpha-prod', 'alpha-prod-secret', 'ann@alpha.example', 'ann-password-1');
    expect((await call('records', 'GET', '/vault/check-email?emailUsername=free-name-1', { token: session })).status).toBe(200);
    const out = await call('user', 'DELETE', '/accounts/logout', { token: session });
    expect(out.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await call('user', 'GET', `/accounts/account-id/${id}`, { token: session })).status).toBe(401);
    expect((await call('records', 'GET', '/vault/check-email?emailUsername=free-name-1', { token: session })).status).toBe(401);
    const fresh = await ann();
    expect((await call('user', 'GET', `/accounts/account-id/${id}`, { token: fresh })).status).toBe(200);
    expect((await call('records', 'GET', '/vault/check-email?emailUsername=free-name-1', { token: fresh })).status).toBe(200);
  });
});
