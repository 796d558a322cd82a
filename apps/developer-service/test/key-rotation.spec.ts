import { INestApplication } from '@nestjs/common';
import { bootTestApp, createTestDatabase, TestDatabase } from '@vault/platform/testing';
import { decodeProtectedHeader, errors } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app/app.module';
import { KeyRotation } from '../src/capabilities/signing-keys/key-rotation';
import { SigningKeysService } from '../src/capabilities/signing-keys/signing-keys.service';
import { API, appPath, baseEnv, bootFailure, verifyWithJwks } from './support';

const DEMO = {
  clientSecret: 'demo-secret',
  username: 'demo@vault.local',
  password: 'demo-password',
};
const TTL = 600;
const SKEW = 60;
const LEAD = 900;

const demoToken = async (app: INestApplication): Promise<string> =>
  (
    await request(app.getHttpServer())
      .post(`${appPath('demo', 'demo-app')}/auth`)
      .send(DEMO)
      .expect(200)
  ).body.access_token;

const publishedKids = async (app: INestApplication): Promise<string[]> =>
  (await request(app.getHttpServer()).get(`${API}/.well-known/jwks.json`).expect(200)).body.keys
    .map((k: { kid: string }) => k.kid)
    .sort();

const kidOf = (token: string) => decodeProtectedHeader(token).kid;

interface KeyRow {
  kid: string;
  active: boolean;
  activates_at: Date;
  retired_at: Date | null;
}

describe('developer-service signing key rotation', () => {
  let db: TestDatabase;
  let a: INestApplication;
  let b: INestApplication;
  let sql: DataSource;
  const rows = async (): Promise<KeyRow[]> =>
    sql.query('SELECT kid, active, activates_at, retired_at FROM signing_keys ORDER BY activates_at');
  /** Both replicas run their periodic check at the same moment. */
  const checkBoth = () => Promise.all([a.get(SigningKeysService).check(), b.get(SigningKeysService).check()]);

  beforeAll(async () => {
    db = await createTestDatabase('developer_rotation');
    const env = {
      ...baseEnv(db.url),
      TOKEN_TTL_SECONDS: String(TTL),
      SIGNING_KEY_ROTATION_DAYS: '30',
      SIGNING_KEY_PUBLISH_LEAD_SECONDS: String(LEAD),
      SIGNING_KEY_CLOCK_SKEW_SECONDS: String(SKEW),
      SIGNING_KEY_CHECK_SECONDS: '',
    };
    a = await bootTestApp(AppModule, env);
    b = await bootTestApp(AppModule, { ...env, DB_MIGRATE_ON_START: 'false' });
    sql = a.get(DataSource);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('publishes the next key before it signs, switches every replica, and keeps the old key until its tokens expire', async () => {
    const [first] = await rows();
    const before = await demoToken(a);
    expect(kidOf(before)).toBe(first.kid);

    // Not due yet: nothing happens, however often the replicas check.
    await checkBoth();
    expect((await rows()).map((r) => r.kid)).toEqual([first.kid]);

    // The active key has signed for 30 days, less than the lead: the next key is made by
    // one replica only (both check at once, under the advisory lock).
    await sql.query(`UPDATE signing_keys SET activates_at = now() - interval '30 days' + make_interval(secs => $1)`, [LEAD - 60]);
    await checkBoth();
    await checkBoth();
    const pending = await rows();
    expect(pending).toHaveLength(2);
    const next = pending[1];
    expect(next).toMatchObject({ active: false, retired_at: null });
    // It signs when the old key's 30 days are up, at least the lead from now.
    expect(next.activates_at.getTime() - Date.now()).toBeGreaterThan((LEAD - 120) * 1000);
    // Published by both replicas at once, while tokens are still signed with the old key.
    expect(await publishedKids(a)).toEqual([first.kid, next.kid].sort());
    expect(await publishedKids(b)).toEqual([first.kid, next.kid].sort());
    expect(kidOf(await demoToken(a))).toBe(first.kid);
    expect(kidOf(await demoToken(b))).toBe(first.kid);

    // Its time comes (moved to just now): every replica signs with it, one switches the rows.
    await sql.query(`UPDATE signing_keys SET activates_at = now() - interval '1 second' WHERE kid = $1`, [next.kid]);
    await checkBoth();
    const switched = await rows();
    expect(switched.find((r) => r.kid === next.kid)).toMatchObject({
      active: true,
      retired_at: null,
    });
    const retired = switched.find((r) => r.kid === first.kid);
    expect(retired).toMatchObject({ active: false });
    expect(retired?.retired_at?.getTime()).toBe(switched.find((r) => r.kid === next.kid)?.activates_at.getTime());
    const after = await demoToken(a);
    expect(kidOf(after)).toBe(next.kid);
    expect(kidOf(await demoToken(b))).toBe(next.kid);

    // The token signed before the rotation still verifies through the JWKS, on both replicas.
    expect(await publishedKids(a)).toEqual([first.kid, next.kid].sort());
    await verifyWithJwks(a, before);
    await verifyWithJwks(b, before);
    await verifyWithJwks(b, after);

    // Still within token lifetime + skew after the switch: kept.
    await sql.query(`UPDATE signing_keys SET retired_at = now() - make_interval(secs => $1) WHERE kid = $2`, [
      TTL + SKEW - 30,
      first.kid,
    ]);
    await checkBoth();
    expect(await publishedKids(b)).toEqual([first.kid, next.kid].sort());

    // Its last token has expired: it leaves the JWKS and the table; its tokens stop verifying.
    await sql.query(`UPDATE signing_keys SET retired_at = now() - make_interval(secs => $1) WHERE kid = $2`, [
      TTL + SKEW + 1,
      first.kid,
    ]);
    await checkBoth();
    expect((await rows()).map((r) => r.kid)).toEqual([next.kid]);
    expect(await publishedKids(a)).toEqual([next.kid]);
    expect(await publishedKids(b)).toEqual([next.kid]);
    await expect(verifyWithJwks(a, before)).rejects.toBeInstanceOf(errors.JWKSNoMatchingKey);
    await verifyWithJwks(a, after);
  });

  it('creates one next key when many checks of several replicas race', async () => {
    await sql.query(`UPDATE signing_keys SET activates_at = now() - interval '30 days'`);
    const rotations = [a, b].map((app) => app.get(KeyRotation));
    const outcomes = await Promise.all([...rotations, ...rotations, ...rotations].map((r) => r.rotate()));
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    const all = await rows();
    expect(all).toHaveLength(2);
    expect(all.filter((r) => r.active)).toHaveLength(1);
    // The old key had passed its time: the new one signs after the lead, from now.
    const created = all.find((r) => !r.active);
    expect(created?.activates_at.getTime()).toBeGreaterThan(Date.now() + (LEAD - 60) * 1000);
  });

  it('refuses a publish lead shorter than the verifiers need to fetch the new key', async () => {
    const err = await bootFailure({
      ...baseEnv(db.url),
      SIGNING_KEY_PUBLISH_LEAD_SECONDS: '300',
      SIGNING_KEY_CHECK_SECONDS: '60',
    });
    expect(err.message).toContain('SIGNING_KEY_PUBLISH_LEAD_SECONDS');
  });
});
