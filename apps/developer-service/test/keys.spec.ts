import { INestApplication } from '@nestjs/common';
import { bootTestApp, createTestDatabase, TestDatabase } from '@vault/platform/testing';
import { dataSourceOptions } from '@vault/platform/persistence';
import { decodeProtectedHeader } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app/app.module';
import { ENTITIES } from '../src/persistence/entities';
import { MIGRATIONS } from '../src/migrations';
import { API, appPath, baseEnv, bootFailure, verifyWithJwks } from './support';

const SECRET = 'a-long-key-encryption-secret';
const DEMO = {
  clientSecret: 'demo-secret',
  username: 'demo@vault.local',
  password: 'demo-password',
};

const demoToken = async (app: INestApplication): Promise<string> =>
  (
    await request(app.getHttpServer())
      .post(`${appPath('demo', 'demo-app')}/auth`)
      .send(DEMO)
      .expect(200)
  ).body.access_token;

const jwks = async (app: INestApplication) =>
  (await request(app.getHttpServer()).get(`${API}/.well-known/jwks.json`).expect(200)).body;

describe('developer-service signing keys', () => {
  const dbs: TestDatabase[] = [];
  const apps: INestApplication[] = [];
  const boot = async (db: TestDatabase, env: Record<string, string> = {}) => {
    const app = await bootTestApp(AppModule, { ...baseEnv(db.url), ...env });
    apps.push(app);
    return app;
  };
  const stop = async (app: INestApplication) => {
    apps.splice(apps.indexOf(app), 1);
    await app.close();
  };
  const newDb = async () => {
    const db = await createTestDatabase('developer_keys');
    dbs.push(db);
    return db;
  };

  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const db of dbs) await db.drop();
  });

  it('keeps the key across a restart, stored encrypted: old tokens still verify', async () => {
    const db = await newDb();
    const first = await boot(db, { KEY_ENCRYPTION_SECRET: SECRET });
    const token = await demoToken(first);
    const kid = decodeProtectedHeader(token).kid;
    const [row] = await first.get(DataSource).query('SELECT kid, private_jwk, encrypted FROM signing_keys');
    expect(row).toMatchObject({ kid, encrypted: true });
    expect(row.private_jwk).not.toContain('"d"');
    await stop(first);

    const second = await boot(db, { KEY_ENCRYPTION_SECRET: SECRET });
    expect((await jwks(second)).keys.map((k: { kid: string }) => k.kid)).toEqual([kid]);
    const { payload } = await verifyWithJwks(second, token);
    expect(payload['tid']).toBe('demo');
    const again = await demoToken(second);
    expect(decodeProtectedHeader(again).kid).toBe(kid);
    await stop(second);

    const wrong = await bootFailure({
      ...baseEnv(db.url),
      KEY_ENCRYPTION_SECRET: 'another-secret-of-length',
    });
    expect(wrong.message).toContain('KEY_ENCRYPTION_SECRET');
    const none = await bootFailure(baseEnv(db.url));
    expect(none.message).toContain('KEY_ENCRYPTION_SECRET');
  });

  it('refuses to start with a malformed KEY_ENCRYPTION_SECRET, naming it without showing the value', async () => {
    const db = await newDb();
    const output: string[] = [];
    const capture = (stream: NodeJS.WriteStream) =>
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        output.push(String(chunk));
        return true;
      });
    for (const value of ['only-15-chars..', `long-${'x'.repeat(1020)}`]) {
      const [stdout, stderr] = [capture(process.stdout), capture(process.stderr)];
      let err: Error;
      try {
        err = await bootFailure({ ...baseEnv(db.url), KEY_ENCRYPTION_SECRET: value });
      } finally {
        stdout.mockRestore();
        stderr.mockRestore();
      }
      expect(err.message).toMatch(/KEY_ENCRYPTION_SECRET: .*\(got a value that is not shown\)/);
      for (const text of [err.message, String(err.stack), ...output]) expect(text).not.toContain(value.slice(0, 12));
    }
  });

  it('encrypts a plainly stored key once a secret is configured', async () => {
    const db = await newDb();
    const plain = await boot(db);
    const [before] = await plain.get(DataSource).query('SELECT kid, private_jwk, encrypted FROM signing_keys');
    expect(before.encrypted).toBe(false);
    expect(JSON.parse(before.private_jwk)).toHaveProperty('d');
    await stop(plain);

    const secured = await boot(db, { KEY_ENCRYPTION_SECRET: SECRET });
    const [after] = await secured.get(DataSource).query('SELECT kid, private_jwk, encrypted FROM signing_keys');
    expect(after).toMatchObject({ kid: before.kid, encrypted: true });
    expect(after.private_jwk).not.toContain('"d"');
  });

  it('agrees on one key when two replicas start at once', async () => {
    const db = await newDb();
    const ds = new DataSource(dataSourceOptions(db.url, { entities: ENTITIES, migrations: MIGRATIONS }, false));
    await ds.initialize();
    await ds.runMigrations();
    await ds.destroy();

    const [a, b] = await Promise.all([boot(db, { DB_MIGRATE_ON_START: 'false' }), boot(db, { DB_MIGRATE_ON_START: 'false' })]);
    const [ka, kb] = [await jwks(a), await jwks(b)];
    expect(ka.keys).toHaveLength(1);
    expect(kb).toEqual(ka);
    const [{ n }] = await a.get(DataSource).query('SELECT count(*)::int AS n FROM signing_keys');
    expect(n).toBe(1);
    const token = await demoToken(a);
    await verifyWithJwks(b, token);
  });
});
