import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { auth, createAccount, fieldsOf, fullAccount, startUserService, UserService } from './support';
import { SmtpSink } from './smtp-sink';

const A = '/api/v1/accounts';
const SEND = { type: 'email', notificationType: 'mfaEmail' };

describe('user-service MFA codes (real SMTP server on loopback)', () => {
  let smtp: SmtpSink;
  let svc: UserService;
  let pg: Client;

  beforeAll(async () => {
    smtp = await SmtpSink.start();
    svc = await startUserService('user_mfa', {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Vault <mfa@vault.test>',
      INVITATIONS_PER_HOUR: '3',
    });
    pg = new Client({ connectionString: svc.db.url });
    await pg.connect();
  });
  afterAll(async () => {
    await pg?.end();
    await svc?.stop();
    await smtp?.stop();
  });

  /** A new account with one email address; returns its token, id and address. */
  async function account(over: Record<string, unknown> = {}) {
    const token = await svc.token();
    const email = `mfa.${randomUUID()}@example.com`;
    const id = await createAccount(svc, token, fullAccount({ emails: [{ address: email, primary: true }], ...over }));
    return { token, id, email };
  }

  /** Sends a code by email and reads it out of the received mail. */
  async function sendAndReceive(a: { token: string; id: string; email: string }, body: object = SEND) {
    const since = smtp.mails.length;
    const res = await svc.http().post(`${A}/account-id/${a.id}/mfa`).set(auth(a.token)).send(body).expect(201);
    expect(res.body).toEqual({});
    const mail = await smtp.next(a.email, since);
    const code = /code is ([0-9]{6})|code est ([0-9]{6})|es ([0-9]{6})/.exec(mail.text);
    if (!code) throw new Error(`no code in mail: ${mail.text}`);
    return { mail, code: code[1] ?? code[2] ?? code[3] };
  }

  const verify = (a: { token: string; id: string }, code: string) =>
    svc.http().get(`${A}/account-id/${a.id}/mfa/mfa-code/${code}`).set(auth(a.token));

  function otherCode(code: string): string {
    return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  }

  it('sends a six-digit code by email (201 {}) that validates once (200 {msg}) and verifies the address', async () => {
    const a = await account();
    const { mail, code } = await sendAndReceive(a);
    expect(mail.from).toBe('mfa@vault.test');
    expect(mail.text).toContain('Subject: Your Vault verification code');
    const stored = await pg.query('SELECT code_hash FROM mfa_codes WHERE account_id = $1', [a.id]);
    expect(stored.rows[0].code_hash).not.toContain(code);
    const ok = await verify(a, code).expect(200);
    expect(ok.body).toEqual({ msg: 'validated' });
    const again = await verify(a, code).expect(400);
    expect(again.body.code).toBe('invalid_mfa_code');
    const mine = (await svc.http().get(`${A}/account-id/${a.id}`).set(auth(a.token))).body;
    expect(mine.emails[0]).toMatchObject({ address: a.email, verified: true });
  });

  it('writes the message in the requested locale', async () => {
    const a = await account();
    const { mail } = await sendAndReceive(a, { ...SEND, locale: 'es-US' });
    expect(mail.text).toMatch(/Subject: =\?UTF-8\?|Subject: Su c/);
    expect(mail.text).toContain('Su código de verificación de Vault es');
  });

  it('refuses a wrong code with 400, and the code dies after five tries', async () => {
    const a = await account();
    const { code } = await sendAndReceive(a);
    for (let i = 0; i < 5; i++) {
      const res = await verify(a, otherCode(code)).expect(400);
      expect(res.body).toMatchObject({ code: 'invalid_mfa_code', errors: [{ field: 'code' }] });
    }
    await verify(a, code).expect(400);
  });

  it('accepts the right code after four wrong ones', async () => {
    const a = await account();
    const { code } = await sendAndReceive(a);
    for (let i = 0; i < 4; i++) await verify(a, otherCode(code)).expect(400);
    await verify(a, code).expect(200);
  });

  it('never lets more than five concurrent tries through', async () => {
    const a = await account();
    const { code } = await sendAndReceive(a);
    const wrong = Array.from({ length: 12 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'));
    await Promise.all(wrong.map((c) => verify(a, c).expect(400)));
    const row = await pg.query('SELECT attempts, consumed_at FROM mfa_codes WHERE account_id = $1', [a.id]);
    expect(row.rows[0].attempts).toBe(5);
    expect(row.rows[0].consumed_at).not.toBeNull();
    await verify(a, code).expect(400);
  });

  it('refuses an expired code (valid ten minutes)', async () => {
    const a = await account();
    const { code } = await sendAndReceive(a);
    const row = await pg.query(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM mfa_codes WHERE account_id = $1`,
      [a.id],
    );
    expect(row.rows[0].ttl).toBeGreaterThanOrEqual(599);
    expect(row.rows[0].ttl).toBeLessThanOrEqual(601);
    await pg.query(`UPDATE mfa_codes SET expires_at = now() - interval '1 second' WHERE account_id = $1`, [a.id]);
    await verify(a, code).expect(400);
  });

  it('throttles resending (429 with Retry-After); a new code replaces the previous one', async () => {
    const a = await account();
    const first = await sendAndReceive(a);
    const res = await svc.http().post(`${A}/account-id/${a.id}/mfa`).set(auth(a.token)).send(SEND).expect(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(30);
    await pg.query(`UPDATE mfa_codes SET created_at = created_at - interval '1 minute' WHERE account_id = $1`, [a.id]);
    const second = await sendAndReceive(a);
    if (first.code !== second.code) await verify(a, first.code).expect(400);
    await verify(a, second.code).expect(200);
  });

  it('sends by SMS to the mobile phone through the provider port (local adapter files)', async () => {
    const a = await account({
      phones: [
        { number: 6135550000, ext: 0, mobile: false },
        { number: 6135550123, ext: 7, mobile: true },
      ],
    });
    await svc
      .http()
      .post(`${A}/account-id/${a.id}/mfa`)
      .set(auth(a.token))
      .send({ ...SEND, type: 'sms', locale: 'fr-CA' })
      .expect(201);
    const files = readdirSync(svc.smsDir).map((f) => JSON.parse(readFileSync(join(svc.smsDir, f), 'utf8')));
    const sms = files.find((f) => f.to === '6135550123');
    expect(sms).toMatchObject({ to: '6135550123', ext: '7', sentAt: expect.any(String) });
    const code = /est ([0-9]{6})/.exec(sms.text)?.[1] as string;
    await verify(a, code).expect(200);
    const mine = (await svc.http().get(`${A}/account-id/${a.id}`).set(auth(a.token))).body;
    expect(mine.phones.map((p: { verified: boolean }) => p.verified)).toEqual([false, true]);
  });

  it('keeps `verified` server-owned: bodies cannot set it, a PUT keeps what a code verified', async () => {
    const forged = { verified: true };
    const address = `forged.${randomUUID()}@example.com`;
    const a = {
      ...(await account({
        emails: [{ address, primary: true, ...forged }],
        phones: [{ number: 6135550123, ext: 0, mobile: true, primary: true, ...forged }],
      })),
      email: address,
    };
    const created = (await svc.http().get(`${A}/account-id/${a.id}`).set(auth(a.token))).body;
    expect([created.emails[0].verified, created.phones[0].verified]).toEqual([false, false]);
    const email = await svc
      .http()
      .post(`${A}/account-id/${a.id}/email`)
      .set(auth(a.token))
      .send({ address: `added.${a.email}`, ...forged })
      .expect(201);
    expect(email.body.emails[1]).toMatchObject({ address: `added.${a.email}`, verified: false });
    const phone = await svc
      .http()
      .post(`${A}/account-id/${a.id}/phone`)
      .set(auth(a.token))
      .send({ number: 6135550124, ext: 0, mobile: false, ...forged })
      .expect(201);
    expect(phone.body.phones[1]).toMatchObject({ number: 6135550124, verified: false });

    const { code } = await sendAndReceive(a);
    await verify(a, code).expect(200);
    const before = (await svc.http().get(`${A}/account-id/${a.id}`).set(auth(a.token))).body;
    expect(before.emails.map((e: { verified: boolean }) => e.verified)).toEqual([true, false]);
    const put = await svc
      .http()
      .put(`${A}/account-id/${a.id}`)
      .set(auth(a.token))
      .send({
        username: before.username,
        firstName: before.firstName,
        lastName: before.lastName,
        emails: [
          { address: a.email.toUpperCase(), primary: true },
          { address: `added.${a.email}`, verified: true },
          { address: `new.${a.email}`, verified: true },
        ],
        phones: [
          { number: 6135550123, ext: 0, mobile: true, verified: true },
          { number: 6135550125, ext: 0, mobile: true, verified: true },
        ],
      })
      .expect(200);
    expect(put.body.emails.map((e: { verified: boolean }) => e.verified)).toEqual([true, false, false]);
    expect(put.body.emails[0]._id).toBe(before.emails[0]._id);
    expect(put.body.phones.map((p: { verified: boolean }) => p.verified)).toEqual([false, false]);
  });

  it('answers 409 when the account has no destination of that type', async () => {
    const a = await account({ phones: [{ number: 6135550000, ext: 0, mobile: false }] });
    const res = await svc
      .http()
      .post(`${A}/account-id/${a.id}/mfa`)
      .set(auth(a.token))
      .send({ ...SEND, type: 'sms' })
      .expect(409);
    expect(res.body.code).toBe('no_mfa_destination');
    const b = await account({ emails: [] });
    await svc.http().post(`${A}/account-id/${b.id}/mfa`).set(auth(b.token)).send(SEND).expect(409);
  });

  it('answers 400 per rule on send and on a code that is not six digits', async () => {
    const a = await account();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ notificationType: 'mfaEmail' }, 'type'],
      [{ ...SEND, type: 'push' }, 'type'],
      [{ type: 'email' }, 'notificationType'],
      [{ ...SEND, notificationType: 'mfaSms' }, 'notificationType'],
      [{ ...SEND, locale: 'de-DE' }, 'locale'],
      [{ ...SEND, channel: 'x' }, 'channel'],
    ];
    for (const [body, field] of cases) {
      const res = await svc.http().post(`${A}/account-id/${a.id}/mfa`).set(auth(a.token)).send(body);
      expect({ field, status: res.status }).toEqual({ field, status: 400 });
      expect(fieldsOf(res.body)).toEqual([field]);
    }
    for (const bad of ['12345', '1234567', 'abcdef']) {
      const res = await verify(a, bad).expect(400);
      expect(fieldsOf(res.body)).toEqual(['code']);
    }
    expect(smtp.mails.some((m) => m.to.includes(a.email))).toBe(false);
  });

  it('answers 404 for another identity’s account', async () => {
    const a = await account();
    const stranger = await svc.token();
    await svc.http().post(`${A}/account-id/${a.id}/mfa`).set(auth(stranger)).send(SEND).expect(404);
    const { code } = await sendAndReceive(a);
    await verify({ token: stranger, id: a.id }, code).expect(404);
    await verify(a, code).expect(200);
  });

  describe('invitations (same mail channel)', () => {
    it('creates an invitation (201 true), mails a single-use code consumed by account creation', async () => {
      const inviter = await account();
      const invitee = `guest.${randomUUID()}@example.com`;
      const since = smtp.mails.length;
      const res = await svc
        .http()
        .post(`${A}/invitations`)
        .set(auth(inviter.token))
        .send({ firsName: 'Guest', LastName: 'User', email: invitee, phone: '+1 613 555 0100' })
        .expect(201);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.body).toBe(true);
      const mail = await smtp.next(invitee, since);
      expect(mail.text).toContain('Hello Guest');
      const code = /invitation code: ([A-Za-z0-9_-]{24})/.exec(mail.text)?.[1] as string;
      expect(code).toBeDefined();
      const stored = await pg.query('SELECT code_hash, first_name, last_name FROM invitations WHERE email = $1', [invitee]);
      expect(stored.rows[0]).toMatchObject({ first_name: 'Guest', last_name: 'User' });
      expect(stored.rows[0].code_hash).not.toContain(code);

      const guest = await svc.token({ username: invitee });
      await createAccount(svc, guest, { firstName: 'Guest', lastName: 'User', invitationCode: code });
      const used = await svc
        .http()
        .post(A)
        .set(auth(await svc.token()))
        .send(fullAccount({ invitationCode: code }))
        .expect(400);
      expect(used.body).toMatchObject({ code: 'invalid_invitation_code', errors: [{ field: 'invitationCode' }] });
    });

    it('refuses unknown, expired and other tenants’ codes; a failed creation leaves the code unused', async () => {
      const inviter = await account();
      const invitee = `guest.${randomUUID()}@example.com`;
      const since = smtp.mails.length;
      await svc.http().post(`${A}/invitations`).set(auth(inviter.token)).send({ email: invitee }).expect(201);
      const code = /invitation code: ([A-Za-z0-9_-]{24})/.exec((await smtp.next(invitee, since)).text)?.[1] as string;

      await svc
        .http()
        .post(A)
        .set(auth(await svc.token()))
        .send(fullAccount({ invitationCode: 'unknown-code' }))
        .expect(400);
      await svc
        .http()
        .post(A)
        .set(auth(await svc.token({ tid: 'tenant-other' })))
        .send(fullAccount({ invitationCode: code }))
        .expect(400);
      // a creation refused for a taken username does not consume the code
      const taken = `taken.${randomUUID()}@example.com`;
      await createAccount(svc, await svc.token(), fullAccount({ username: taken }));
      const guest = await svc.token();
      await svc
        .http()
        .post(A)
        .set(auth(guest))
        .send(fullAccount({ username: taken, invitationCode: code }))
        .expect(409);
      await createAccount(svc, guest, fullAccount({ invitationCode: code }));

      await svc
        .http()
        .post(`${A}/invitations`)
        .set(auth(inviter.token))
        .send({ email: `late.${invitee}` })
        .expect(201);
      const late = /invitation code: ([A-Za-z0-9_-]{24})/.exec((await smtp.next(`late.${invitee}`, since)).text)?.[1] as string;
      await pg.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE email = $1`, [`late.${invitee}`]);
      await svc
        .http()
        .post(A)
        .set(auth(await svc.token()))
        .send(fullAccount({ invitationCode: late }))
        .expect(400);
    });

    it('throttles invitations per identity (429 with Retry-After)', async () => {
      const inviter = await account();
      for (let i = 0; i < 3; i++) {
        await svc
          .http()
          .post(`${A}/invitations`)
          .set(auth(inviter.token))
          .send({ email: `t${i}.${inviter.email}` })
          .expect(201);
      }
      const res = await svc
        .http()
        .post(`${A}/invitations`)
        .set(auth(inviter.token))
        .send({ email: `t4.${inviter.email}` })
        .expect(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(3500);
      const since = smtp.mails.length;
      await svc
        .http()
        .post(`${A}/invitations`)
        .set(auth((await account()).token))
        .send({ email: `t5.${inviter.email}` })
        .expect(201);
      await smtp.next(`t5.${inviter.email}`, since);
      expect(smtp.mails.some((m) => m.to.includes(`t4.${inviter.email}`))).toBe(false);
    });

    it('never lets parallel invitations of one identity exceed the hourly limit', async () => {
      const inviter = await account();
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          svc
            .http()
            .post(`${A}/invitations`)
            .set(auth(inviter.token))
            .send({ email: `p${i}.${inviter.email}` })
            .then((r) => r.status),
        ),
      );
      expect(statuses.filter((s) => s === 201)).toHaveLength(3);
      expect(statuses.filter((s) => s === 429)).toHaveLength(7);
      const stored = await pg.query('SELECT count(*)::int AS n FROM invitations WHERE email LIKE $1', [`p%.${inviter.email}`]);
      expect(stored.rows[0].n).toBe(3);
    });

    it('answers 400 per rule', async () => {
      const inviter = await account();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'email'],
        [{ email: 'not-mail' }, 'email'],
        [{ email: 'a@example.com', phone: 'call me' }, 'phone'],
        [{ email: 'a@example.com', firstName: '' }, 'firstName'],
        [{ email: 'a@example.com', lastName: 5 }, 'lastName'],
        [{ email: 'a@example.com', role: 'admin' }, 'role'],
      ];
      for (const [body, field] of cases) {
        const res = await svc.http().post(`${A}/invitations`).set(auth(inviter.token)).send(body);
        expect({ field, status: res.status }).toEqual({ field, status: 400 });
        expect(fieldsOf(res.body)).toContain(field);
      }
    });
  });
});
