import { AsyncLocalStorage } from 'node:async_hooks';
import { hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { jwtVerify, SignJWT } from 'jose';
import { DeveloperEnv } from '../../config/developer.env';

/** Device cookies are named this, then 16 hex digits of the login they vouch for. */
export const DEVICE_COOKIE_PREFIX = 'vault_device_';
const AUDIENCE = 'vault-sign-in-device';
const TYPE = 'device+jwt';
/** A cookie value longer than this is no device token of ours (it is not even parsed). */
const MAX_TOKEN_LENGTH = 1024;

/** The cookies of the sign-in being served: the one presented, and where a new one goes. */
interface DeviceJar {
  read(name: string): string | undefined;
  write(name: string, value: string, maxAgeSeconds: number): void;
}

/** The value of cookie `name` in a Cookie header (RFC 6265 §5.4), if any. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Device cookies (OWASP, "Slow down online guessing attacks with device cookies"): a
 * client that signed in as a user gets a cookie vouching for that login: an HS256 JWT
 * (jose) with the login's throttle key as `sub` and a random device id as `jti`. A sign-in
 * presenting a valid one is a trusted client and is throttled by its device id alone
 * (LoginThrottle), so strangers failing the user's password from any number of addresses
 * cannot lock the user out of the devices it used before. Each success issues a fresh one.
 *
 * The key is AUTH_DEVICE_SECRET, else derived from KEY_ENCRYPTION_SECRET (HKDF), else
 * random per process (cookies then hold only on the instance that issued them).
 */
@Injectable()
export class DeviceCookies {
  private readonly log = new Logger('Auth');
  private readonly key: Uint8Array;
  private readonly jars = new AsyncLocalStorage<DeviceJar>();

  constructor(private readonly env: DeveloperEnv) {
    this.key = this.signingKey();
  }

  /** Runs a sign-in of `req` with its device cookies (read from `req`, a new one set on `res`). */
  run<T>(req: Request, res: Response, signIn: () => Promise<T>): Promise<T> {
    const jar: DeviceJar = {
      read: (name) => cookieValue(req.headers.cookie, name),
      write: (name, value, maxAge) =>
        res.append('Set-Cookie', `${name}=${value}; Max-Age=${maxAge}; Path=/; HttpOnly; Secure; SameSite=Strict`),
    };
    return this.jars.run(jar, signIn);
  }

  /** The cookie name of a login (its throttle key). */
  nameOf(userKey: string): string {
    return DEVICE_COOKIE_PREFIX + userKey.slice(0, 16);
  }

  /** The device id of the valid device cookie the client presents for this login, if any. */
  async presented(userKey: string): Promise<string | undefined> {
    const token = this.jars.getStore()?.read(this.nameOf(userKey));
    if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        typ: TYPE,
        audience: AUDIENCE,
        subject: userKey,
      });
      return typeof payload.jti === 'string' ? payload.jti : undefined;
    } catch {
      return undefined; // expired, tampered, another login's: an unknown client
    }
  }

  /** A successful sign-in: the client gets a new device cookie for this login. */
  async issue(userKey: string): Promise<void> {
    const jar = this.jars.getStore();
    if (!jar) return;
    const days = this.env.AUTH_DEVICE_COOKIE_DAYS;
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', typ: TYPE })
      .setSubject(userKey)
      .setAudience(AUDIENCE)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(`${days}d`)
      .sign(this.key);
    jar.write(this.nameOf(userKey), token, days * 86400);
  }

  private signingKey(): Uint8Array {
    const derive = (secret: string, info: string) =>
      new Uint8Array(hkdfSync('sha256', secret, 'vault sign-in devices', info, 32));
    if (this.env.AUTH_DEVICE_SECRET) return derive(this.env.AUTH_DEVICE_SECRET, 'AUTH_DEVICE_SECRET');
    if (this.env.KEY_ENCRYPTION_SECRET) return derive(this.env.KEY_ENCRYPTION_SECRET, 'device cookies');
    this.log.warn(
      'AUTH_DEVICE_SECRET and KEY_ENCRYPTION_SECRET are unset: device cookies are signed with a key of this process only',
    );
    return new Uint8Array(randomBytes(32));
  }
}
