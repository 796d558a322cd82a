import { call, type Reply } from '../support/client';

/**
 * Device cookies through the gateway (docs/developer-api.md, Device cookies): the cookie a
 * sign-in sets reaches the client, and presented again it lets its owner in while failures
 * from the owner's own address (a stranger behind the same NAT) hold that address back.
 * The suite signs in as bob through the application alpha-web, a (user, client) pair no
 * other suite uses, so the waits it causes hold nobody else back.
 */
describe('sign-in with a device cookie through the gateway', () => {
  const path = '/tenant/tenant-id/alpha/applications/client-id/alpha-web/auth';
  const signIn = (password: string, cookie?: string) =>
    call('developer', 'POST', path, {
      body: { clientSecret: 'alpha-web-secret', username: 'bob@alpha.example', password },
      headers: cookie ? { cookie } : {},
    });
  const deviceCookie = (res: Reply): string => {
    const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    const line = set.find((c) => c.startsWith('vault_device_'));
    expect(line).toMatch(/^vault_device_[0-9a-f]{16}=[^;]+; Max-Age=15552000; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    return (line as string).split(';')[0];
  };

  it('lets the owner in with its device cookie while failures at its address make unknown clients wait', async () => {
    const first = await signIn('bob-password-1');
    expect(first.status).toBe(200);
    const cookie = deviceCookie(first);

    // failures at the same address until the (user, address) pair must wait 8 s or more
    for (;;) {
      const res = await signIn('a-guess');
      if (res.status === 401) continue;
      expect(res.status).toBe(429);
      const wait = Number(res.headers['retry-after']);
      if (wait >= 8) break;
      await new Promise((r) => setTimeout(r, wait * 1000));
    }
    const unknown = await signIn('bob-password-1');
    expect(unknown.status).toBe(429);
    expect(unknown.body).toMatchObject({ status: 429, code: 'too_many_requests' });

    const known = await signIn('bob-password-1', cookie);
    expect(known.status).toBe(200);
    expect(known.body.access_token).toEqual(expect.any(String));
    expect(deviceCookie(known)).not.toBe(cookie);
  });
});
