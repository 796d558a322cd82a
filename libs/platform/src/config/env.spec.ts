import { IsString, MinLength } from 'class-validator';
import { EnvValidationError, loadEnv, parseAddressList, SecretSetting, ServiceEnv } from './env';

class SampleEnv extends ServiceEnv {
  @IsString()
  REQUIRED_THING!: string;
}

describe('loadEnv', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/db', REQUIRED_THING: 'x' };

  it('applies defaults and converts numbers and booleans', () => {
    const env = loadEnv(SampleEnv, { ...base, PORT: '4100', DB_MIGRATE_ON_START: 'false' });
    expect(env.PORT).toBe(4100);
    expect(env.DB_MIGRATE_ON_START).toBe(false);
    expect(env.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(env.NODE_ENV).toBe('development');
  });

  it('names every missing or malformed variable', () => {
    let error: EnvValidationError | undefined;
    try {
      loadEnv(SampleEnv, { PORT: 'eighty', DATABASE_URL: 'mysql://x', DB_MIGRATE_ON_START: 'maybe' });
    } catch (e) {
      error = e as EnvValidationError;
    }
    expect(error).toBeInstanceOf(EnvValidationError);
    const { problems, message } = error as EnvValidationError;
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'DATABASE_URL',
      'DB_MIGRATE_ON_START',
      'PORT',
      'REQUIRED_THING',
    ]);
    expect(message).toMatch(/Invalid configuration/);
  });

  it('names a malformed secret variable without showing its value', () => {
    class WithSecret extends SampleEnv {
      @SecretSetting()
      @MinLength(16)
      SOME_KEY = '';
    }
    const attempt = () => loadEnv(WithSecret, { ...base, SOME_KEY: 'hunter2', LOG_FORMAT: 'xml' });
    expect(attempt).toThrow(/SOME_KEY: .*\(got a value that is not shown\)/);
    expect(attempt).toThrow(/LOG_FORMAT: .*\(got "xml"\)/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('shows a malformed URL setting with its user information hidden', () => {
    const attempt = () => loadEnv(SampleEnv, { ...base, DATABASE_URL: 'postgres://vault:hunter2 here@', NATS_URL: '' });
    expect(attempt).toThrow(/DATABASE_URL: .*\(got "postgres:\/\/vault:\*\*\*@"\)/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('refuses credentials in AUTH_JWKS_URL (fetched without them), without showing them', () => {
    const attempt = () => loadEnv(SampleEnv, { ...base, AUTH_JWKS_URL: 'http://keys:hunter2@127.0.0.1:3001/jwks.json' });
    expect(attempt).toThrow(/AUTH_JWKS_URL: .*\(got "http:\/\/keys:\*\*\*@127\.0\.0\.1:3001\/jwks\.json"\)/);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('treats empty strings as unset', () => {
    const env = loadEnv(SampleEnv, { ...base, PORT: '' });
    expect(env.PORT).toBe(3000);
  });
});

describe('TRUSTED_PROXIES', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/db' };

  it('trusts loopback only by default', () => {
    expect(parseAddressList(loadEnv(ServiceEnv, base).TRUSTED_PROXIES)).toEqual(['127.0.0.0/8', '::1']);
  });

  it('takes addresses and CIDR ranges of both families', () => {
    const env = loadEnv(ServiceEnv, { ...base, TRUSTED_PROXIES: ' 10.42.0.0/16, fd00::/8,172.18.0.5 ' });
    expect(parseAddressList(env.TRUSTED_PROXIES)).toEqual(['10.42.0.0/16', 'fd00::/8', '172.18.0.5']);
  });

  it.each(['gateway', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/8/1', '10.0.0.0/x', ',', 'loopback'])(
    'refuses %j naming the variable',
    (value) => {
      expect(() => loadEnv(ServiceEnv, { ...base, TRUSTED_PROXIES: value })).toThrow(/TRUSTED_PROXIES/);
    },
  );
});

describe('KV_REPLICAS', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/db' };

  it('is 1 unless set, and takes 1 to 5', () => {
    expect(loadEnv(ServiceEnv, base).KV_REPLICAS).toBe(1);
    expect(loadEnv(ServiceEnv, { ...base, KV_REPLICAS: '3' }).KV_REPLICAS).toBe(3);
  });

  it.each(['0', '6', 'three'])('refuses KV_REPLICAS=%s naming the variable', (value) => {
    expect(() => loadEnv(ServiceEnv, { ...base, KV_REPLICAS: value })).toThrow(EnvValidationError);
    expect(() => loadEnv(ServiceEnv, { ...base, KV_REPLICAS: value })).toThrow(/KV_REPLICAS/);
  });
});
