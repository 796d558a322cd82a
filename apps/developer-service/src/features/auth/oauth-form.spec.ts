import { OAuthError } from './oauth.errors';
import { parseOAuthForm } from './oauth-form';
import { clientCredentials } from './oauth-client-auth';

const refusal = (f: () => unknown): OAuthError => {
  try {
    f();
  } catch (e) {
    return e as OAuthError;
  }
  throw new Error('not refused');
};

describe('parseOAuthForm', () => {
  it('decodes fields, + as space, and drops empty ones (RFC 6749 §3.2)', () => {
    const form = parseOAuthForm('grant_type=password&username=a%40b.test&password=x+y%2Bz&scope=');
    expect([...form]).toEqual([
      ['grant_type', 'password'],
      ['username', 'a@b.test'],
      ['password', 'x y+z'],
    ]);
  });

  it('refuses a repeated field, a bad escape and bad UTF-8 with invalid_request', () => {
    for (const body of ['grant_type=password&grant_type=refresh_token', 'grant_type=a&grant_type=', 'a=%zz', 'a=%E0%A4%A']) {
      const err = refusal(() => parseOAuthForm(body));
      expect(err).toBeInstanceOf(OAuthError);
      expect(err.error).toBe('invalid_request');
      expect(err.status).toBe(400);
    }
  });
});

describe('clientCredentials', () => {
  const basic = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;

  it('reads client_secret_basic with form-encoded id and secret (RFC 6749 §2.3.1)', () => {
    expect(clientCredentials(new Map(), basic('my%20app:s%3Acret+x'))).toEqual({
      clientId: 'my app',
      secret: 's:cret x',
      viaBasic: true,
    });
  });

  it('reads client_secret_post', () => {
    const form = new Map([
      ['client_id', 'app'],
      ['client_secret', 's'],
    ]);
    expect(clientCredentials(form, undefined)).toEqual({ clientId: 'app', secret: 's', viaBasic: false });
  });

  it('refuses two methods at once, and a malformed Basic header', () => {
    const form = new Map([['client_secret', 's']]);
    expect(refusal(() => clientCredentials(form, basic('a:b'))).error).toBe('invalid_request');
    const bad = refusal(() => clientCredentials(new Map(), 'Basic !!!'));
    expect({ error: bad.error, status: bad.status }).toEqual({ error: 'invalid_client', status: 401 });
    expect(bad.headers['WWW-Authenticate']).toMatch(/^Basic /);
  });

  it('answers invalid_client (400) when the client does not authenticate at all', () => {
    const none = refusal(() => clientCredentials(new Map([['client_id', 'app']]), undefined));
    expect({ error: none.error, status: none.status }).toEqual({ error: 'invalid_client', status: 400 });
  });
});
