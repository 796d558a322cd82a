import { EnvValidationError, loadEnv } from '@vault/platform/config';
import { DeveloperEnv, tokenIdentity } from './developer.env';

const DB = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dev' };

describe('DeveloperEnv', () => {
  it('has the documented defaults', () => {
    const env = loadEnv(DeveloperEnv, DB);
    expect(env).toMatchObject({
      PORT: 3001,
      TOKEN_TTL_SECONDS: 900,
      AUTH_MAX_FAILURES: 5,
      AUTH_MAX_FAILURES_PER_IP: 100,
      AUTH_FAILURE_WINDOW_SECONDS: 900,
      REFRESH_TOKEN_TTL_SECONDS: 14 * 86400,
      REFRESH_TOKEN_FAMILY_TTL_SECONDS: 30 * 86400,
    });
    expect(tokenIdentity(env)).toEqual({
      issuer: 'https://developer-api.localhost:8443/api/v1',
      audience: 'vault-api',
    });
  });

  it('issues with TOKEN_ISSUER/TOKEN_AUDIENCE, falling back to AUTH_ISSUER/AUTH_AUDIENCE', () => {
    expect(
      tokenIdentity(
        loadEnv(DeveloperEnv, {
          ...DB,
          AUTH_ISSUER: 'https://a',
          AUTH_AUDIENCE: 'x',
        }),
      ),
    ).toEqual({
      issuer: 'https://a',
      audience: 'x',
    });
    expect(
      tokenIdentity(
        loadEnv(DeveloperEnv, {
          ...DB,
          AUTH_ISSUER: 'https://a',
          TOKEN_ISSUER: 'https://b',
          TOKEN_AUDIENCE: 'y',
        }),
      ),
    ).toEqual({ issuer: 'https://b', audience: 'y' });
  });

  it('names out-of-range values', () => {
    expect(() => loadEnv(DeveloperEnv, { ...DB, TOKEN_TTL_SECONDS: '30' })).toThrow(/TOKEN_TTL_SECONDS/);
    expect(() => loadEnv(DeveloperEnv, { ...DB, TOKEN_TTL_SECONDS: '86400' })).toThrow(EnvValidationError);
    expect(() => loadEnv(DeveloperEnv, { ...DB, AUTH_MAX_FAILURES: '0' })).toThrow(/AUTH_MAX_FAILURES/);
    expect(() => loadEnv(DeveloperEnv, { ...DB, KEY_ENCRYPTION_SECRET: 'short' })).toThrow(
      /KEY_ENCRYPTION_SECRET: .*\(got a value that is not shown\)$/,
    );
  });

  it('refuses a publish lead shorter than the verifiers need to fetch a new key, unless rotation is off', () => {
    const short = { ...DB, SIGNING_KEY_PUBLISH_LEAD_SECONDS: '300', SIGNING_KEY_CHECK_SECONDS: '60' };
    expect(() => loadEnv(DeveloperEnv, short)).toThrow(
      /SIGNING_KEY_PUBLISH_LEAD_SECONDS: must be at least 360 \(the verifiers' JWKS refresh of 300 s plus SIGNING_KEY_CHECK_SECONDS\) \(got 300\)/,
    );
    expect(loadEnv(DeveloperEnv, { ...short, SIGNING_KEY_PUBLISH_LEAD_SECONDS: '360' }).SIGNING_KEY_PUBLISH_LEAD_SECONDS).toBe(
      360,
    );
    expect(loadEnv(DeveloperEnv, { ...short, SIGNING_KEY_ROTATION_DAYS: '0' }).SIGNING_KEY_PUBLISH_LEAD_SECONDS).toBe(300);
  });

  it('refuses a refresh-token family that ends before its tokens could', () => {
    expect(() =>
      loadEnv(DeveloperEnv, { ...DB, REFRESH_TOKEN_TTL_SECONDS: '7200', REFRESH_TOKEN_FAMILY_TTL_SECONDS: '3600' }),
    ).toThrow(/REFRESH_TOKEN_FAMILY_TTL_SECONDS: must be at least REFRESH_TOKEN_TTL_SECONDS/);
    expect(() => loadEnv(DeveloperEnv, { ...DB, REFRESH_TOKEN_TTL_SECONDS: '60' })).toThrow(/REFRESH_TOKEN_TTL_SECONDS/);
    const env = loadEnv(DeveloperEnv, { ...DB, REFRESH_TOKEN_TTL_SECONDS: '3600', REFRESH_TOKEN_FAMILY_TTL_SECONDS: '3600' });
    expect(env.REFRESH_TOKEN_FAMILY_TTL_SECONDS).toBe(3600);
  });
});
