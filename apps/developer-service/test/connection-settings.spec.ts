import { createTestDatabase, spawnAppEntry, TestDatabase } from '@vault/platform/testing';
import { baseEnv } from './support';

const PASSWORD = 'hunter2-not-to-be-shown';

/** Runs developer-service's real entry with `args` and `env` until it exits; its status and all it wrote. */
async function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnAppEntry('developer-service', args, {
    NODE_ENV: 'test',
    LOG_LEVEL: 'log',
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output: output() };
}

describe('developer-service start with URL settings carrying a password (real process)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('developer_url_settings');
  });

  afterAll(async () => {
    await db.drop();
  });

  it('refuses a malformed DATABASE_URL, naming it and showing it without the password', async () => {
    const { code, output } = await run([], { ...baseEnv(db.url), DATABASE_URL: `postgres://vault:${PASSWORD} x@` });
    expect(code).toBe(1);
    expect(output).toMatch(/DATABASE_URL: .*\(got "postgres:\/\/vault:\*\*\*@"\)/);
    expect(output).not.toContain(PASSWORD);
  }, 60_000);

  it('stops when NATS cannot be reached, naming NATS_URL and showing it without the password', async () => {
    const { code, output } = await run([], { ...baseEnv(db.url), NATS_URL: `nats://vault:${PASSWORD}@127.0.0.1:1` });
    expect(code).toBe(1);
    expect(output).toContain('cannot connect to NATS (NATS_URL=nats://vault:***@127.0.0.1:1): connection refused');
    expect(output).not.toContain(PASSWORD);
  }, 60_000);

  it('stops `migrate` when the database cannot be reached, naming DATABASE_URL and showing it without the password', async () => {
    const { code, output } = await run(['migrate'], {
      ...baseEnv(db.url),
      DATABASE_URL: `postgres://vault:${PASSWORD}@127.0.0.1:1/vault_developer`,
    });
    expect(code).toBe(1);
    expect(output).toContain(
      'cannot connect to the database (DATABASE_URL=postgres://vault:***@127.0.0.1:1/vault_developer): connect ECONNREFUSED',
    );
    expect(output).not.toContain(PASSWORD);
  }, 60_000);
});
