import { EnvValidationError, loadEnv } from '@vault/platform/config';
import { ResumableEnv } from './resumable.env';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };

describe('ResumableEnv, caps on slow and greedy clients', () => {
  it('has the documented defaults (docs/files.md, Slow and greedy clients)', () => {
    expect(loadEnv(ResumableEnv, base)).toMatchObject({
      TUS_MAX_OPEN_UPLOADS: 10,
      TUS_MAX_OPEN_UPLOADS_PER_TENANT: 1000,
      TUS_MAX_WRITES_PER_CALLER: 4,
      TUS_MAX_WRITES_PER_TENANT: 64,
      TUS_WRITES_RETRY_AFTER_SECONDS: 5,
      TUS_MIN_BODY_BYTES_PER_SECOND: 1024,
      TUS_BODY_RATE_GRACE_MS: 20_000,
      TUS_LOCK_TIMEOUT_MS: 10_000,
      TUS_MAX_LOCKED_UPLOADS: 1000,
      TUS_LOCK_CONNECTIONS: 2,
      TUS_LOCK_STATEMENT_TIMEOUT_MS: 5000,
    });
  });

  it('takes other values within bounds; a minimum body rate of 0 turns it off', () => {
    const env = loadEnv(ResumableEnv, {
      ...base,
      TUS_MAX_WRITES_PER_CALLER: '1',
      TUS_MAX_WRITES_PER_TENANT: '100000',
      TUS_MIN_BODY_BYTES_PER_SECOND: '0',
      TUS_LOCK_CONNECTIONS: '32',
    });
    expect([
      env.TUS_MAX_WRITES_PER_CALLER,
      env.TUS_MAX_WRITES_PER_TENANT,
      env.TUS_MIN_BODY_BYTES_PER_SECOND,
      env.TUS_LOCK_CONNECTIONS,
    ]).toEqual([1, 100_000, 0, 32]);
  });

  it.each([
    ['TUS_MAX_OPEN_UPLOADS_PER_TENANT', '0'],
    ['TUS_MAX_WRITES_PER_CALLER', '0'],
    ['TUS_MAX_WRITES_PER_CALLER', 'many'],
    ['TUS_MAX_WRITES_PER_TENANT', '100001'],
    ['TUS_WRITES_RETRY_AFTER_SECONDS', '0'],
    ['TUS_MIN_BODY_BYTES_PER_SECOND', '-1'],
    ['TUS_BODY_RATE_GRACE_MS', '999'],
    ['TUS_LOCK_TIMEOUT_MS', '99'],
    ['TUS_MAX_LOCKED_UPLOADS', '0'],
    ['TUS_LOCK_CONNECTIONS', '0'],
    ['TUS_LOCK_CONNECTIONS', '33'],
    ['TUS_LOCK_STATEMENT_TIMEOUT_MS', '60001'],
  ])('refuses %s=%s at boot, naming it', (name, value) => {
    expect(() => loadEnv(ResumableEnv, { ...base, [name]: value })).toThrow(EnvValidationError);
    expect(() => loadEnv(ResumableEnv, { ...base, [name]: value })).toThrow(name);
  });
});
