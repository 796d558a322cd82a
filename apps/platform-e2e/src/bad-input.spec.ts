import { ann, call } from '../support/client';

/** Input a database cannot store is a clear 400 on every module, never a server error. */
describe('NUL characters in input', () => {
  let token: string;
  beforeAll(async () => {
    token = await ann();
  });

  it('is refused in path parameters, queries and bodies with the field named', async () => {
    const cases = [
      call('user', 'GET', '/accounts/username/a%00b', { token }),
      call('user', 'GET', '/accounts/username/a%00b/check', { token }),
      call('records', 'GET', '/vault/check-email?emailUsername=a%00b', { token }),
      call('records', 'POST', '/vault', { token, body: { name: 'a\u0000b' } }),
      call('developer', 'POST', '/tenant/tenant-id/alpha/applications/client-id/alpha-prod/auth', {
        body: { clientSecret: 'x', username: 'ann\u0000@alpha.example', password: 'y' },
      }),
    ];
    for (const res of await Promise.all(cases)) {
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.errors?.[0]?.field).toEqual(expect.any(String));
    }
  });
});
