import { IsString } from 'class-validator';
import { EnvValidationError, loadEnv, ServiceEnv } from './env';

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
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['DATABASE_URL', 'DB_MIGRATE_ON_START', 'PORT', 'REQUIRED_THING']);
    expect(message).toMatch(/Invalid configuration/);
  });

  it('treats empty strings as unset', () => {
    const env = loadEnv(SampleEnv, { ...base, PORT: '' });
    expect(env.PORT).toBe(3000);
  });
});
