import { INestApplication } from '@nestjs/common';
import { bootTestApp, createTestDatabase, TestDatabase } from '@vault/platform/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app/app.module';
import { parseBootstrapFile } from '../src/features/bootstrap/bootstrap-file';
import { BootstrapService } from '../src/features/bootstrap/bootstrap.service';
import { appPath, baseEnv, bootFailure, writeBootstrapFile } from './support';

const file = (password: string, secret = 'first-secret') => ({
  tenants: [
    {
      id: 'acme',
      name: 'Acme',
      applications: [
        {
          clientId: 'acme-web',
          clientSecret: secret,
          testMode: false,
          redirectUris: [],
        },
      ],
      users: [
        { username: 'ops@acme.test', password },
        { username: 'dev@acme.test', password: 'dev-password' },
      ],
    },
  ],
});

async function counts(app: INestApplication) {
  const ds = app.get(DataSource);
  const [row] = await ds.query(`SELECT
      (SELECT count(*)::int FROM tenants) AS tenants,
      (SELECT count(*)::int FROM applications) AS applications,
      (SELECT count(*)::int FROM organisation_users) AS users`);
  return row;
}

const signIn = (app: INestApplication, password: string, secret = 'first-secret') =>
  request(app.getHttpServer())
    .post(`${appPath('acme', 'acme-web')}/auth`)
    .send({ clientSecret: secret, username: 'ops@acme.test', password });

describe('developer-service bootstrap', () => {
  let db: TestDatabase;
  const apps: INestApplication[] = [];
  const boot = async (env: Record<string, string>) => {
    const app = await bootTestApp(AppModule, { ...baseEnv(db.url), ...env });
    apps.push(app);
    return app;
  };

  beforeAll(async () => {
    db = await createTestDatabase('developer_bootstrap');
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await db?.drop();
  });

  it('applies the file idempotently and a changed password or secret takes effect on restart', async () => {
    const dir = writeBootstrapFile(file('old-password')).replace(/bootstrap\.json$/, '');
    const first = await boot({ VAULT_BOOTSTRAP_FILE: `${dir}bootstrap.json` });
    expect(await counts(first)).toEqual({
      tenants: 1,
      applications: 1,
      users: 2,
    });
    await signIn(first, 'old-password').expect(200);

    // Applying the same file again changes nothing and duplicates nothing.
    const again = await first.get(BootstrapService).apply(parseBootstrapFile(JSON.stringify(file('old-password'))));
    expect(again).toEqual({ tenants: 1, created: 0, updated: 0, unchanged: 4 });
    expect(await counts(first)).toEqual({
      tenants: 1,
      applications: 1,
      users: 2,
    });
    const hashBefore = await first
      .get(DataSource)
      .query(`SELECT password_hash FROM organisation_users WHERE username = 'dev@acme.test'`);
    await first.close();
    apps.pop();

    // Restart with a changed password and secret: the new ones work, the old ones are refused.
    writeBootstrapFile(file('new-password', 'second-secret'), dir);
    const second = await boot({ VAULT_BOOTSTRAP_FILE: `${dir}bootstrap.json` });
    expect(await counts(second)).toEqual({
      tenants: 1,
      applications: 1,
      users: 2,
    });
    await signIn(second, 'old-password', 'second-secret').expect(401);
    await signIn(second, 'new-password', 'first-secret').expect(401);
    await signIn(second, 'new-password', 'second-secret').expect(200);
    // An unchanged password keeps its stored hash (no needless rehash).
    const hashAfter = await second
      .get(DataSource)
      .query(`SELECT password_hash FROM organisation_users WHERE username = 'dev@acme.test'`);
    expect(hashAfter).toEqual(hashBefore);
  });

  it('stops the boot with a message naming the variable for a bad file', async () => {
    const bad = writeBootstrapFile({
      tenants: [
        {
          id: 'bad tenant',
          name: 'Bad',
          applications: [
            {
              clientId: 'x',
              clientSecret: 'long-enough-secret',
              testMode: true,
              colour: 'red',
            },
          ],
          users: [{ username: 'a@b.test' }],
        },
      ],
    });
    const err = await bootFailure({
      ...baseEnv(db.url),
      VAULT_BOOTSTRAP_FILE: bad,
    });
    expect(err.message).toContain('VAULT_BOOTSTRAP_FILE');
    expect(err.message).toContain('tenants.0.id');
    expect(err.message).toContain('tenants.0.applications.0.colour');
    expect(err.message).toContain('tenants.0.users.0.password');

    const missing = await bootFailure({
      ...baseEnv(db.url),
      VAULT_BOOTSTRAP_FILE: '/nonexistent/bootstrap.json',
    });
    expect(missing.message).toMatch(/VAULT_BOOTSTRAP_FILE .*cannot be read \(ENOENT\)/);
  });

  it('creates the demo tenant when no file is given outside production', async () => {
    const app = await boot({});
    const res = await request(app.getHttpServer())
      .post(`${appPath('demo', 'demo-app')}/auth`)
      .type('form')
      .send({
        clientSecret: 'demo-secret',
        username: 'demo@vault.local',
        password: 'demo-password',
      })
      .expect(200);
    expect(res.body.token_type).toBe('Bearer');
    // the second demo user, to share vaults with
    await request(app.getHttpServer())
      .post(`${appPath('demo', 'demo-app')}/auth`)
      .type('form')
      .send({ clientSecret: 'demo-secret', username: 'guest@vault.local', password: 'guest-password' })
      .expect(200);
    await request(app.getHttpServer())
      .post(`${appPath('demo', 'demo-app')}/auth`)
      .type('form')
      .send({ clientSecret: 'demo-secret', username: 'guest@vault.local', password: 'demo-password' })
      .expect(401);
    const test = await request(app.getHttpServer())
      .get(`${appPath('demo', 'demo-app')}/test`)
      .expect(200);
    expect(test.body.redirectUrl).toMatch(/^https:\/\/localhost:8443\/callback#access_token=/);
  });
});
