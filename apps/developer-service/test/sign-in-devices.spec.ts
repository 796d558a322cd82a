import { INestApplication } from '@nestjs/common';
import { bootTestApp, createTestDatabase, TestDatabase } from '@vault/platform/testing';
import request from 'supertest';
import { AppModule } from '../src/app/app.module';
import { DEVICE_COOKIE_PREFIX } from '../src/features/auth/device-cookies';
import { LOGIN_POLICY, loginKey } from '../src/features/auth/login-throttle.service';
import { appPath, baseEnv, writeBootstrapFile } from './support';

const SECRET = 'secret-d-123';
const USERS = ['olive', 'pete', 'quinn'];
const FILE = {
  tenants: [
    {
      id: 'tenant-d',
      name: 'Tenant D',
      applications: [{ clientId: 'app-d', clientSecret: SECRET }],
      users: USERS.map((name) => ({ username: `${name}@d.test`, password: `${name}-password` })),
    },
  ],
};
const FREE = 3;
const DEVICE_FAILURES = 3;

const right = (name: string) => ({ clientSecret: SECRET, username: `${name}@d.test`, password: `${name}-password` });
const wrong = (name: string) => ({ ...right(name), password: 'a-guess' });
const cookieName = (name: string) => DEVICE_COOKIE_PREFIX + loginKey('tenant-d', 'app-d', `${name}@d.test`).slice(0, 16);

/**
 * Device cookies (issue 29, "no lockout by strangers"): the owner of an account signs in
 * from a device that signed in before while strangers fail its password from many
 * addresses until every unknown client is refused.
 */
describe('sign-in with device cookies', () => {
  let db: TestDatabase;
  let app: INestApplication;

  const signIn = (ip: string, body: object, cookie?: string) => {
    const req = request(app.getHttpServer())
      .post(`${appPath('tenant-d', 'app-d')}/auth`)
      .set('X-Forwarded-For', ip);
    return (cookie ? req.set('Cookie', cookie) : req).send(body);
  };
  const passwordGrant = (ip: string, name: string, cookie?: string) => {
    const req = request(app.getHttpServer())
      .post(`${appPath('tenant-d', 'app-d')}/oauth/token`)
      .set('X-Forwarded-For', ip)
      .type('form');
    return (cookie ? req.set('Cookie', cookie) : req).send({
      grant_type: 'password',
      client_id: 'app-d',
      client_secret: SECRET,
      username: `${name}@d.test`,
      password: `${name}-password`,
    });
  };
  /** The `name=value` of the device cookie an answer sets for `user`. */
  const deviceCookie = (res: request.Response, user: string): string => {
    const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
    const line = set.find((c) => c.startsWith(`${cookieName(user)}=`));
    if (!line) throw new Error(`no device cookie for ${user} in ${JSON.stringify(set)}`);
    return line.split(';')[0];
  };
  /** Strangers fail `user`'s password from new addresses (FREE each) until unknown clients are refused. */
  const hammer = async (user: string) => {
    for (let i = 0; i < LOGIN_POLICY.userCeiling; i++) {
      await signIn(`198.18.${Math.floor(i / FREE / 250)}.${(Math.floor(i / FREE) % 250) + 1}`, wrong(user)).expect(401);
    }
    await signIn('198.18.99.1', wrong(user)).expect(429);
  };

  beforeAll(async () => {
    db = await createTestDatabase('developer_devices');
    app = await bootTestApp(AppModule, {
      ...baseEnv(db.url),
      VAULT_BOOTSTRAP_FILE: writeBootstrapFile(FILE),
      AUTH_MAX_FAILURES: String(FREE),
      AUTH_MAX_FAILURES_PER_IP: '1000',
      AUTH_DEVICE_MAX_FAILURES: String(DEVICE_FAILURES),
      AUTH_DEVICE_SECRET: 'device-secret-of-the-suite-0123456789',
    });
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('sets a device cookie on a successful sign-in: HttpOnly, Secure, SameSite=Strict, bound to the login', async () => {
    const res = await signIn('203.0.113.1', right('olive')).expect(200);
    const line = ([] as string[]).concat(res.headers['set-cookie']).find((c) => c.startsWith(cookieName('olive')));
    expect(line).toMatch(/; Max-Age=15552000; Path=\/; HttpOnly; Secure; SameSite=Strict$/);
    // a failed sign-in sets none
    const failed = await signIn('203.0.113.1', wrong('olive')).expect(401);
    expect(failed.headers['set-cookie']).toBeUndefined();
  });

  describe('while strangers hammer an account until unknown clients are refused', () => {
    const home = '203.0.113.10';
    /** Two devices of pete's that signed in before the attack, and one of olive's. */
    let phone: string;
    let laptop: string;
    let olives: string;

    beforeAll(async () => {
      phone = deviceCookie(await signIn(home, right('pete')).expect(200), 'pete');
      laptop = deviceCookie(await signIn('203.0.113.11', right('pete')).expect(200), 'pete');
      olives = deviceCookie(await signIn('203.0.113.12', right('olive')).expect(200), 'olive');
      await hammer('pete');
    }, 120_000);

    it('lets the owner in from a known device, from any address, and through the OAuth password grant', async () => {
      // the owner on a new device (or without the cookie) is an unknown client: refused like the strangers
      await signIn(home, right('pete')).expect(429);
      const known = await signIn(home, right('pete'), phone).expect(200);
      expect(known.body.access_token).toEqual(expect.any(String));
      const fresh = deviceCookie(known, 'pete');
      expect(fresh).not.toBe(phone);
      await signIn('192.0.2.77', right('pete'), fresh).expect(200);
      await passwordGrant(home, 'pete').expect(429);
      await passwordGrant(home, 'pete', fresh).expect(200);
      // other users are not affected
      await signIn('203.0.113.12', right('olive'), olives).expect(200);
    });

    it('keeps refusing strangers: no cookie, a forged or tampered one, or the cookie of another login', async () => {
      await signIn('198.18.99.2', wrong('pete')).expect(429);
      await signIn('198.18.99.2', right('pete'), `${cookieName('pete')}=not.a.token`).expect(429);
      // the signature's first character changed: all six of its bits are signature bits (the
      // last character of a base64url HMAC carries padding bits a decoder may ignore)
      const tampered = laptop.replace(/\.(.)([^.]*)$/, (_, c: string, rest: string) => `.${c === 'A' ? 'Q' : 'A'}${rest}`);
      expect(tampered).not.toBe(laptop);
      await signIn('198.18.99.2', right('pete'), tampered).expect(429);
      // olive's cookie under pete's cookie name vouches for nobody but olive
      await signIn('198.18.99.2', right('pete'), `${cookieName('pete')}=${olives.split('=')[1]}`).expect(429);
    });

    it('counts a device cookie for nothing after its own failures (a stolen cookie buys a few guesses)', async () => {
      for (let i = 0; i < DEVICE_FAILURES; i++) await signIn('203.0.113.11', wrong('pete'), laptop).expect(401);
      await signIn('203.0.113.11', right('pete'), laptop).expect(429);
    });
  });
});
