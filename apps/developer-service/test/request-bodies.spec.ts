import { INestApplication } from '@nestjs/common';
import { MAX_JSON_DEPTH } from '@vault/contracts';
import {
  bootTestApp,
  createTestDatabase,
  expectProblemReply,
  nestedJson,
  rawRequest,
  TestDatabase,
} from '@vault/platform/testing';
import { AppModule } from '../src/app/app.module';
import { appPath, baseEnv, writeBootstrapFile } from './support';

const FILE = {
  tenants: [
    {
      id: 'tenant-a',
      name: 'Tenant A',
      applications: [{ clientId: 'app-a', clientSecret: 'secret-a-123' }],
      users: [{ username: 'alice@a.test', password: 'alice-password' }],
    },
  ],
};
const ALICE = { clientSecret: 'secret-a-123', username: 'alice@a.test', password: 'alice-password' };
const AUTH = `${appPath('tenant-a', 'app-a')}/auth`;

/** developer-service request bodies on the token route (docs/errors.md, Request bodies). */
describe('developer-service request bodies', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    db = await createTestDatabase('developer_bodies');
    app = await bootTestApp(AppModule, { ...baseEnv(db.url), VAULT_BOOTSTRAP_FILE: writeBootstrapFile(FILE) });
    base = await app.getUrl();
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const signIn = (body: string, type?: string) => rawRequest(base, 'POST', AUTH, body, type ? { 'content-type': type } : {});

  it('refuses credentials sent as text/plain, XML or without a type with 415', async () => {
    for (const type of ['text/plain', 'application/xml', undefined]) {
      expectProblemReply(await signIn(JSON.stringify(ALICE), type), 415, 'unsupported_media_type');
    }
  });

  it(`refuses a body nested deeper than ${MAX_JSON_DEPTH} levels, or holding __proto__, with 400`, async () => {
    const deep = JSON.stringify(ALICE).replace(/}$/, `,"x":${nestedJson(10_000)}}`);
    expect(expectProblemReply(await signIn(deep, 'application/json'), 400, 'validation_failed')['detail']).toContain(
      `deeper than ${MAX_JSON_DEPTH} levels`,
    );
    const proto = JSON.stringify(ALICE).replace(/}$/, ',"__proto__":{"admin":true}}');
    expect(expectProblemReply(await signIn(proto, 'application/json'), 400, 'validation_failed')['errors']).toEqual([
      { field: '__proto__', message: 'property __proto__ should not exist' },
    ]);
  });

  it('still issues tokens for JSON and form-encoded credentials after the refusals (they spent no sign-in budget)', async () => {
    for (let i = 0; i < 6; i++) expect((await signIn('{"clientSecret":', 'application/json')).status).toBe(400);
    const json = await signIn(JSON.stringify(ALICE), 'application/json');
    const form = await signIn(new URLSearchParams(ALICE).toString(), 'application/x-www-form-urlencoded');
    expect([json.status, form.status]).toEqual([200, 200]);
    expect(form.json()).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
  });
});
