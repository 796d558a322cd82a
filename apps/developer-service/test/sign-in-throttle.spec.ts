import { INestApplication } from '@nestjs/common';
import { metricsRegistry } from '@vault/platform/observability';
import { bootTestApp, createTestDatabase, TestClock, TestDatabase } from '@vault/platform/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../src/app/app.module';
import { LOGIN_POLICY, loginKey, pairKey } from '../src/features/auth/login-throttle.service';
import { appPath, baseEnv, writeBootstrapFile } from './support';

const SECRET = 'secret-t-123';
const FILE = {
  tenants: [
    {
      id: 'tenant-t',
      name: 'Tenant T',
      applications: [{ clientId: 'app-t', clientSecret: SECRET }],
      users: ['frank', 'grace', 'heidi', 'ivan', 'judy'].map((name) => ({
        username: `${name}@t.test`,
        password: `${name}-password`,
      })),
    },
  ],
};
/** Free attempts of a (user, address) pair in these suites. */
const FREE = 3;
const PER_IP = 12;

const right = (name: string) => ({
  clientSecret: SECRET,
  username: `${name}@t.test`,
  password: `${name}-password`,
});
const wrong = (name: string) => ({ ...right(name), password: 'not-the-password' });
const userKey = (name: string) => loginKey('tenant-t', 'app-t', `${name}@t.test`);
/** login_throttle_refusals_total of one limit in the registry GET /metrics serves. */
const refusals = async (limit: string): Promise<number> => {
  const line = (await metricsRegistry.metrics())
    .split('\n')
    .find((l) => l.startsWith(`login_throttle_refusals_total{limit="${limit}"} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
};

async function boot(db: TestDatabase, extra: Record<string, string> = {}) {
  return bootTestApp(AppModule, {
    ...baseEnv(db.url),
    VAULT_BOOTSTRAP_FILE: writeBootstrapFile(FILE),
    AUTH_MAX_FAILURES: String(FREE),
    AUTH_MAX_FAILURES_PER_IP: String(PER_IP),
    TRUSTED_PROXIES: '',
    ...extra,
  });
}

describe('sign-in throttling', () => {
  let db: TestDatabase;
  let app: INestApplication;
  /** Signs in as if from `ip` (X-Forwarded-For from the loopback gateway is believed). */
  const signIn = (ip: string, body: object) =>
    request(app.getHttpServer())
      .post(`${appPath('tenant-t', 'app-t')}/auth`)
      .set('X-Forwarded-For', ip)
      .send(body);
  const points = async (key: string): Promise<number> => {
    const rows: Array<{ points: number }> = await app
      .get(DataSource)
      .query(`SELECT points FROM auth_throttle WHERE key = $1 AND (expire IS NULL OR expire > $2)`, [key, Date.now()]);
    return rows[0]?.points ?? 0;
  };

  beforeAll(async () => {
    db = await createTestDatabase('developer_throttle');
    app = await boot(db);
  });
  /** Moved forward instead of sleeping through a pair's delays (throttle expiries are Date.now() based). */
  let clock: TestClock | undefined;
  afterEach(() => {
    clock?.restore();
    clock = undefined;
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('keeps a user signing in from its own address while other addresses fail against it, up to the per-user ceiling', async () => {
    const home = '203.0.113.10';
    const lastFree = LOGIN_POLICY.userCeiling - 1;
    let failures = 0;
    let attacker = 0;
    // Attackers rotate addresses, each staying within its pair's free attempts.
    while (failures < lastFree) {
      const from = `198.18.${Math.floor(attacker / 250)}.${(attacker % 250) + 1}`;
      attacker++;
      for (let i = 0; i < FREE && failures < lastFree; i++) {
        await signIn(from, wrong('frank')).expect(401);
        failures++;
      }
      if (attacker % 5 === 0) await signIn(home, right('frank')).expect(200);
    }
    await signIn(home, right('frank')).expect(200);
    // Far above the five attempts that used to lock the user out: the 100th failure in an
    // hour, from every address together, is where the last resort begins.
    await signIn('198.18.100.1', wrong('frank')).expect(401);
    expect(failures + 1).toBe(100);
    const refused = await signIn('198.18.200.1', wrong('frank')).expect(429);
    expect(refused.body).toMatchObject({ status: 429, code: 'too_many_requests' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(LOGIN_POLICY.maxDelaySeconds);
    expect(retryAfter).toBeLessThanOrEqual(LOGIN_POLICY.userCeilingWindowSeconds);
    await signIn(home, right('frank')).expect(429);
    // Other users of the tenant are not affected.
    await signIn('198.18.200.1', right('grace')).expect(200);
  }, 120_000);

  it('spends none of the user budget on attempts the address block refuses', async () => {
    const stuffer = '198.51.100.7';
    const [ipBefore, userBefore] = [await refusals('ip'), await refusals('user')];
    for (let i = 0; i < PER_IP; i++) {
      await signIn(stuffer, wrong(`nobody-${i}`)).expect(401);
    }
    for (let i = 0; i < 150; i++) {
      const res = await signIn(stuffer, wrong('heidi')).expect(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The right password from the blocked address is refused too (no credential check there).
    await signIn(stuffer, right('heidi')).expect(429);
    // every refusal counted under the limit that refused it
    expect(await refusals('ip')).toBe(ipBefore + 151);
    expect(await refusals('user')).toBe(userBefore);
    expect(await points(`user-ceiling:${userKey('heidi')}`)).toBe(0);
    expect(await points(`pair:${pairKey({ userKey: userKey('heidi'), ip: stuffer })}`)).toBe(0);

    // Heidi's own address still has its whole pair budget, and her failures alone count.
    const home = '203.0.113.20';
    for (let i = 0; i < FREE - 1; i++) await signIn(home, wrong('heidi')).expect(401);
    expect(await points(`user-ceiling:${userKey('heidi')}`)).toBe(FREE - 1);
    await signIn(home, right('heidi')).expect(200);
    expect(await points(`user-ceiling:${userKey('heidi')}`)).toBe(FREE - 1);
    expect(await points(`pair:${pairKey({ userKey: userKey('heidi'), ip: home })}`)).toBe(0);
  }, 60_000);

  it('delays a pair progressively (1 s, 2 s, 4 s) instead of locking it, and a success resets it', async () => {
    const home = '203.0.113.30';
    const delays: number[] = [];
    const time = (clock = TestClock.install());
    for (let i = 0; i < FREE; i++) await signIn(home, wrong('ivan')).expect(401);
    for (let round = 0; round < 3; round++) {
      // Refused while the pair waits, even with the right password; Retry-After says how long.
      const refused = await signIn(home, right('ivan')).expect(429);
      expect(refused.body.code).toBe('too_many_requests');
      const wait = Number(refused.headers['retry-after']);
      delays.push(wait);
      // Another address of the same user is not delayed.
      await signIn(`203.0.113.${40 + round}`, wrong('ivan')).expect(401);
      time.advance(wait * 1000 + 50);
      await signIn(home, wrong('ivan')).expect(401);
    }
    expect(delays).toEqual([1, 2, 4]);
    expect(Number((await signIn(home, wrong('ivan')).expect(429)).headers['retry-after'])).toBe(8);

    // The pair's wait is spent, then a success starts it afresh: FREE failures again before 1 s.
    time.advance(8_050);
    await signIn(home, right('ivan')).expect(200);
    for (let i = 0; i < FREE; i++) await signIn(home, wrong('ivan')).expect(401);
    expect(Number((await signIn(home, right('ivan')).expect(429)).headers['retry-after'])).toBe(1);
  }, 60_000);

  it('keys requests by the X-Forwarded-For of a trusted proxy (the gateway on loopback)', async () => {
    for (let i = 0; i < PER_IP; i++) {
      await signIn('198.51.100.8', wrong(`nobody-${i}`)).expect(401);
    }
    await signIn('198.51.100.8', right('judy')).expect(429);
    await signIn('198.51.100.9', right('judy')).expect(200);
  }, 30_000);
});

describe('sign-in throttling behind an untrusted peer', () => {
  let db: TestDatabase;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase('developer_untrusted');
    // The gateway is somewhere else: the loopback peer of these requests is not a proxy.
    app = await boot(db, { TRUSTED_PROXIES: '10.255.0.0/16' });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('ignores a forged X-Forwarded-For and keys the caller by its socket address', async () => {
    const server = app.getHttpServer();
    const url = `${appPath('tenant-t', 'app-t')}/auth`;
    for (let i = 0; i < PER_IP; i++) {
      await request(server)
        .post(url)
        .set('X-Forwarded-For', `192.0.2.${i + 1}`)
        .send(wrong(`nobody-${i}`))
        .expect(401);
    }
    // Blocked as 127.0.0.1, whatever address it claims.
    const res = await request(server).post(url).set('X-Forwarded-For', '192.0.2.200').send(right('judy')).expect(429);
    expect(res.body.code).toBe('too_many_requests');
    const rows: Array<{ key: string }> = await app
      .get(DataSource)
      .query(`SELECT key FROM auth_throttle WHERE key LIKE 'ip:%' ORDER BY key`);
    expect(rows.map((r) => r.key)).toEqual(['ip:127.0.0.1']);
  }, 30_000);
});
