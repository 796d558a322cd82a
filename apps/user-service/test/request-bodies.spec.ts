import { MAX_JSON_DEPTH } from '@vault/contracts';
import { expectProblemReply, nestedJson, rawRequest, RawReply } from '@vault/platform/testing';
import { auth, fullAccount, startUserService, UserService } from './support';

/** user-service request bodies on a real route (docs/errors.md, Request bodies and URL fields). */
describe('user-service request bodies', () => {
  let svc: UserService;
  let base: string;

  beforeAll(async () => {
    svc = await startUserService('user_bodies');
    base = await svc.app.getUrl();
  });
  afterAll(() => svc?.stop());

  async function createWith(body: string, type?: string, token?: string): Promise<RawReply> {
    const headers: Record<string, string> = { ...auth(token ?? (await svc.token())) };
    if (type) headers['content-type'] = type;
    return rawRequest(base, 'POST', '/api/v1/accounts', body, headers);
  }

  it('POST /accounts refuses a text/plain or untyped body with 415, creating nothing', async () => {
    const token = await svc.token();
    const json = JSON.stringify(fullAccount());
    expectProblemReply(await createWith(json, 'text/plain', token), 415, 'unsupported_media_type');
    expectProblemReply(await createWith(json, undefined, token), 415, 'unsupported_media_type');
    // nothing was created for this identity: the same body as JSON creates the account (not 409)
    expect((await createWith(json, 'application/json', token)).status).toBe(200);
  });

  it(`POST /accounts refuses nesting beyond ${MAX_JSON_DEPTH} levels with 400, not 500`, async () => {
    const deep = JSON.stringify(fullAccount()).replace(/}$/, `,"settings2":${nestedJson(10_000)}}`);
    const body = expectProblemReply(await createWith(deep, 'application/json'), 400, 'validation_failed');
    expect(body['detail']).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('POST /accounts names a __proto__ key inside settings as an unknown field', async () => {
    const text = JSON.stringify(fullAccount()).replace('"settings":{', '"settings":{"__proto__":{"mfaDisabled":true},');
    const body = expectProblemReply(await createWith(text, 'application/json'), 400, 'validation_failed');
    expect(body['errors']).toEqual([{ field: 'settings.__proto__', message: 'property __proto__ should not exist' }]);
  });

  it('POST /accounts takes a form-encoded body with nested fields', async () => {
    const account = fullAccount();
    const form = new URLSearchParams({
      username: account['username'] as string,
      firstName: 'Form',
      lastName: 'Filled',
      'primaryResidence[city]': 'Ottawa',
    }).toString();
    const token = await svc.token();
    const res = await createWith(form, 'application/x-www-form-urlencoded', token);
    expect(res.status).toBe(200);
    const stored = await svc
      .http()
      .get(`/api/v1/accounts/account-id/${res.json()['id'] as string}`)
      .set(auth(token))
      .expect(200);
    expect(stored.body).toMatchObject({ firstName: 'Form', lastName: 'Filled', primaryResidence: { city: 'Ottawa' } });
  });

  it('profilePhoto takes https URLs only', async () => {
    const res = await svc
      .http()
      .post('/api/v1/accounts')
      .set(auth(await svc.token()))
      .send(fullAccount({ profilePhoto: 'javascript:alert(1)' }))
      .expect(400);
    expect(res.body.errors).toEqual([
      {
        field: 'profilePhoto',
        message: 'profilePhoto must be an https URL of at most 2048 characters (http only for localhost)',
      },
    ]);
  });
});
