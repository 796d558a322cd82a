import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { auth, createAccount, fullAccount, startUserService, UserService } from './support';

const A = '/api/v1/accounts';

/** Settings other than those an account is created with (fullAccount: CA). */
const SETTINGS = { ...(fullAccount().settings as Record<string, unknown>), country: 'MX', mfaMode: 'everyTime' };

const profile = (firstName: string, username = `etag.${randomUUID()}@example.com`) => ({ username, firstName, lastName: 'Doe' });

describe('user-service conditional requests (accounts and settings)', () => {
  let svc: UserService;
  let pg: Client;
  let token: string;
  let id: string;

  beforeAll(async () => {
    svc = await startUserService('user_etag');
    pg = new Client({ connectionString: svc.db.url });
    await pg.connect();
  });
  beforeEach(async () => {
    token = await svc.token();
    id = await createAccount(svc, token);
  });
  afterAll(async () => {
    await pg?.end();
    await svc?.stop();
  });

  const row = async (sql: string) => (await pg.query(sql, [id])).rows;
  const accountRow = () => row('SELECT * FROM accounts WHERE id = $1');
  const settingsRow = () => row('SELECT * FROM account_settings WHERE account_id = $1');

  describe('accounts', () => {
    it('every account read answers the same strong ETag, and 304 to a matching If-None-Match', async () => {
      const byId = await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).expect(200);
      expect(byId.headers.etag).toBe(`"${id}.1"`);
      const byName = await svc
        .http()
        .get(`${A}/username/${encodeURIComponent(byId.body.username)}`)
        .set(auth(token))
        .expect(200);
      const byOpenId = await svc
        .http()
        .get(`${A}/open-id/${encodeURIComponent(byId.body.openId)}`)
        .set(auth(token))
        .expect(200);
      expect([byName.headers.etag, byOpenId.headers.etag]).toEqual([byId.headers.etag, byId.headers.etag]);

      for (const header of [byId.headers.etag, `W/${byId.headers.etag}`, `"a", ${byId.headers.etag}`, '*']) {
        const res = await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).set('If-None-Match', header).expect(304);
        expect(res.text).toBe('');
        expect(res.headers.etag).toBe(byId.headers.etag);
      }
      await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).set('If-None-Match', `"${id}.7"`).expect(200);
    });

    it('PUT answers the new ETag a following GET shows; email and phone changes are new versions too', async () => {
      const etag = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token))).headers.etag;
      const put = await svc
        .http()
        .put(`${A}/account-id/${id}`)
        .set(auth(token))
        .set('If-Match', etag)
        .send(profile('Ann'))
        .expect(200);
      expect(put.headers.etag).toBe(`"${id}.2"`);
      expect((await svc.http().get(`${A}/account-id/${id}`).set(auth(token))).headers.etag).toBe(put.headers.etag);

      await svc
        .http()
        .post(`${A}/account-id/${id}/email`)
        .set(auth(token))
        .send({ address: `x.${randomUUID()}@example.com` })
        .expect(201);
      expect((await svc.http().get(`${A}/account-id/${id}`).set(auth(token))).headers.etag).toBe(`"${id}.3"`);
      // settings are their own resource: the account's version stays
      await svc.http().put(`${A}/account-id/${id}/settings`).set(auth(token)).send(SETTINGS).expect(200);
      expect((await accountRow())[0].version).toBe(3);
    });

    it('a stale If-Match on PUT is 412 precondition_failed and changes nothing', async () => {
      await svc.http().put(`${A}/account-id/${id}`).set(auth(token)).send(profile('Second')).expect(200);
      const before = await accountRow();
      const res = await svc
        .http()
        .put(`${A}/account-id/${id}`)
        .set(auth(token))
        .set('If-Match', `"${id}.1"`)
        .send(profile('Third'))
        .expect(412);
      expect(res.body).toMatchObject({ status: 412, code: 'precondition_failed' });
      await svc
        .http()
        .put(`${A}/account-id/${id}`)
        .set(auth(token))
        .set('If-Match', 'not-a-tag')
        .send(profile('Third'))
        .expect(412);
      expect(await accountRow()).toEqual(before);
    });

    it('two writers racing with the same ETag: exactly one wins, the other gets 412', async () => {
      const etag = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token))).headers.etag;
      const answers = await Promise.all(
        ['A', 'B', 'C'].map((name) =>
          svc.http().put(`${A}/account-id/${id}`).set(auth(token)).set('If-Match', etag).send(profile(name)),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412]);
      const winner = answers.find((a) => a.status === 200);
      const [stored] = await accountRow();
      expect({ firstName: stored.first_name, version: stored.version }).toEqual({
        firstName: winner?.body.firstName,
        version: 2,
      });
    });
  });

  describe('settings', () => {
    it('GET answers the settings ETag and 304; PUT answers the new one a following GET shows', async () => {
      const path = `${A}/account-id/${id}/settings`;
      const get = await svc.http().get(path).set(auth(token)).expect(200);
      expect(get.headers.etag).toBe(`"${get.body.id}.${get.body.__v}"`);
      await svc.http().get(path).set(auth(token)).set('If-None-Match', get.headers.etag).expect(304);
      const put = await svc.http().put(path).set(auth(token)).set('If-Match', get.headers.etag).send(SETTINGS).expect(200);
      expect(put.headers.etag).toBe(`"${get.body.id}.${get.body.__v + 1}"`);
      expect((await svc.http().get(path).set(auth(token))).headers.etag).toBe(put.headers.etag);
    });

    it('a stale If-Match is 412 and changes nothing; racing writers: exactly one wins', async () => {
      const path = `${A}/account-id/${id}/settings`;
      const etag = (await svc.http().get(path).set(auth(token))).headers.etag;
      const [a, b] = await Promise.all([
        svc.http().put(path).set(auth(token)).set('If-Match', etag).send(SETTINGS),
        svc
          .http()
          .put(path)
          .set(auth(token))
          .set('If-Match', etag)
          .send({ ...SETTINGS, country: 'CA' }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 412]);
      const before = await settingsRow();
      const stale = await svc
        .http()
        .put(path)
        .set(auth(token))
        .set('If-Match', etag)
        .send({ ...SETTINGS, country: 'US' })
        .expect(412);
      expect(stale.body.code).toBe('precondition_failed');
      expect(await settingsRow()).toEqual(before);
      expect(before[0].country).toBe(a.status === 200 ? 'MX' : 'CA');
    });
  });

  it('OpenAPI describes If-Match, If-None-Match, ETag and 304/412/428 on the account and settings routes', async () => {
    const doc = (await svc.http().get('/api/v1/openapi.json').expect(200)).body;
    for (const path of ['/accounts/account-id/{id}', '/accounts/account-id/{id}/settings']) {
      const get = doc.paths[path].get;
      const put = doc.paths[path].put;
      expect(get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['If-None-Match']));
      expect(get.responses['200'].headers.ETag).toBeDefined();
      expect(get.responses['304']).toBeDefined();
      expect(put.parameters.map((p: { name: string }) => p.name)).toContain('If-Match');
      expect(put.responses['200'].headers.ETag).toBeDefined();
      expect(Object.keys(put.responses)).toEqual(expect.arrayContaining(['412', '428']));
    }
  });
});

describe('user-service with REQUIRE_IF_MATCH=true', () => {
  let svc: UserService;

  beforeAll(async () => {
    svc = await startUserService('user_etag_required', { REQUIRE_IF_MATCH: 'true' });
  });
  afterAll(async () => {
    await svc?.stop();
    delete process.env.REQUIRE_IF_MATCH;
  });

  it('answers 428 precondition_required to account and settings PUTs without If-Match; with it they pass', async () => {
    const token = await svc.token();
    const id = await createAccount(svc, token);
    const account = await svc.http().put(`${A}/account-id/${id}`).set(auth(token)).send(profile('Z')).expect(428);
    expect(account.body).toMatchObject({ status: 428, code: 'precondition_required' });
    await svc.http().put(`${A}/account-id/${id}/settings`).set(auth(token)).send(SETTINGS).expect(428);
    const etag = (await svc.http().get(`${A}/account-id/${id}`).set(auth(token)).expect(200)).headers.etag;
    await svc.http().put(`${A}/account-id/${id}`).set(auth(token)).set('If-Match', etag).send(profile('Z')).expect(200);
    const settings = (await svc.http().get(`${A}/account-id/${id}/settings`).set(auth(token))).headers.etag;
    await svc.http().put(`${A}/account-id/${id}/settings`).set(auth(token)).set('If-Match', settings).send(SETTINGS).expect(200);
  });
});
