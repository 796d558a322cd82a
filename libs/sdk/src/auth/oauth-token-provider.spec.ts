import { VaultApiError } from '../errors';
import type { SendInit } from '../policy/transport';
import { OAuthTokenProvider, type TokenSet } from './oauth-token-provider';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function provider(answers: Response[], extra: { tokens?: TokenSet; password?: string } = {}) {
  const sent: { url: string; form: URLSearchParams; init: SendInit }[] = [];
  const stored: TokenSet[] = [];
  let now = 1_000_000;
  const p = new OAuthTokenProvider(
    {
      developerUrl: 'https://developer-api.localhost:8443/api/v1',
      tenantId: 'alpha',
      clientId: 'alpha-prod',
      clientSecret: 's3cret',
      username: 'ann@alpha.example',
      password: 'password' in extra ? extra.password : 'pw',
      tokens: extra.tokens,
      onTokens: (t) => void stored.push(t),
      now: () => now,
    },
    async (url, init) => {
      sent.push({ url, form: new URLSearchParams(String(init.body)), init });
      return answers.shift() as Response;
    },
  );
  return { p, sent, stored, advance: (ms: number) => (now += ms) };
}

const issued = (n: number) =>
  json(200, { access_token: `at${n}`, token_type: 'Bearer', expires_in: 900, refresh_token: `rt${n}` });

describe('OAuthTokenProvider', () => {
  it('signs in with the password grant at the application’s token endpoint, then reuses the token', async () => {
    const { p, sent, stored } = provider([issued(1)]);
    expect(await p.getToken()).toBe('at1');
    expect(await p.getToken()).toBe('at1');
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe(
      'https://developer-api.localhost:8443/api/v1/tenant/tenant-id/alpha/applications/client-id/alpha-prod/oauth/token',
    );
    expect(Object.fromEntries(sent[0].form)).toEqual({
      grant_type: 'password',
      username: 'ann@alpha.example',
      password: 'pw',
      scope: 'vault',
      client_id: 'alpha-prod',
      client_secret: 's3cret',
    });
    expect(sent[0].init.auth).toBe(false);
    expect(stored).toEqual([{ accessToken: 'at1', refreshToken: 'rt1', expiresAt: 1_000_000 + 900_000 }]);
  });

  it('renews with the refresh token 30 s before expiry, keeping the rotated one', async () => {
    const { p, sent, advance } = provider([issued(1), issued(2), issued(3)]);
    await p.getToken();
    advance(900_000 - 29_000);
    expect(await p.getToken()).toBe('at2');
    expect(Object.fromEntries(sent[1].form)).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'rt1' });
    p.invalidate('at2');
    expect(await p.getToken()).toBe('at3');
    expect(sent[2].form.get('refresh_token')).toBe('rt2');
  });

  it('renews once for many callers at the same time', async () => {
    const { p, sent } = provider([issued(1)]);
    expect(await Promise.all([p.getToken(), p.getToken(), p.getToken()])).toEqual(['at1', 'at1', 'at1']);
    expect(sent).toHaveLength(1);
  });

  it('signs in again when the refresh token is refused and the password is known', async () => {
    const tokens = { accessToken: 'old', refreshToken: 'spent', expiresAt: 0 };
    const { p, sent } = provider([json(400, { error: 'invalid_grant', error_description: 'spent' }), issued(9)], { tokens });
    expect(await p.getToken()).toBe('at9');
    expect(sent.map((s) => s.form.get('grant_type'))).toEqual(['refresh_token', 'password']);
  });

  it('throws the OAuth error as a VaultApiError when it cannot sign in again', async () => {
    const tokens = { accessToken: 'old', refreshToken: 'spent', expiresAt: 0 };
    const { p } = provider([json(400, { error: 'invalid_grant', error_description: 'spent' })], { tokens, password: undefined });
    const error = await p.getToken().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_grant' });
  });
});
