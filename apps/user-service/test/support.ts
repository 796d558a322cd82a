import { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import request from 'supertest';
import { deleteStreams, NATS_CONNECTION } from '@vault/platform/events';
import { bootTestApp, createTestDatabase, TestDatabase, TestIdentityProvider, TokenOptions } from '@vault/platform/testing';
import { AppModule } from '../src/app/app.module';
import { AccountEventsRelay } from '../src/capabilities/account-events/account-events.relay';

/** A booted user-service on its own database, its identity provider and message folders. */
export interface UserService {
  app: INestApplication;
  db: TestDatabase;
  idp: TestIdentityProvider;
  env: Record<string, string>;
  /** Name of this run's account events stream (in its own events namespace). */
  accountStream: string;
  mailDir: string;
  smsDir: string;
  http(): ReturnType<typeof request>;
  /** A token of a new identity (or of the one given). */
  token(o?: TokenOptions): Promise<string>;
  stop(): Promise<void>;
}

/** The shared NATS (booting an app copies its env into process.env: read this first). */
export const SHARED_NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** Waits until `check` holds, polling every 50 ms; fails naming `what` after `ms`. */
export async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Deletes the account events stream of an app's events namespace (test clean-up; NATS must be up). */
export async function deleteAccountStream(app: INestApplication): Promise<void> {
  const nc = app.get<NatsConnection>(NATS_CONNECTION);
  if (nc.isClosed()) return;
  const jsm = await jetstreamManager(nc);
  await deleteStreams(jsm, [app.get(AccountEventsRelay).host.spec.name]);
}

/** A unique events namespace, so runs on a shared NATS never meet. */
export const uniqueNamespace = (tag: string) => `t_${tag}_${randomBytes(4).toString('hex')}`;

/**
 * `databaseUrl` may rewrite the service's database address (for example through a relay).
 * Each service gets its own events namespace (its account events stream is deleted at stop).
 */
export async function startUserService(
  prefix: string,
  extraEnv: Record<string, string> = {},
  databaseUrl: (url: string) => string = (url) => url,
): Promise<UserService> {
  const db = await createTestDatabase(prefix);
  const idp = await TestIdentityProvider.start();
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const mailDir = join(dir, 'mail');
  const smsDir = join(dir, 'sms');
  const env = {
    DATABASE_URL: databaseUrl(db.url),
    ...idp.env(),
    MAIL_DIR: mailDir,
    SMS_DIR: smsDir,
    SMTP_URL: '',
    EVENTS_NAMESPACE: uniqueNamespace(prefix),
    ...extraEnv,
  };
  const app = await bootTestApp(AppModule, env);
  const accountStream = app.get(AccountEventsRelay).host.spec.name;
  return {
    app,
    db,
    idp,
    env,
    accountStream,
    mailDir,
    smsDir,
    http: () => request(app.getHttpServer()),
    token: (o = {}) => idp.token({ sub: `vault|${randomUUID()}`, username: `${randomUUID()}@example.com`, ...o }),
    async stop() {
      await deleteAccountStream(app).catch(() => undefined);
      await app.close();
      await idp.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const auth = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A complete, valid creation body (every account field, with settings and agreements). */
export function fullAccount(over: Record<string, unknown> = {}): Record<string, unknown> {
  const n = randomUUID().slice(0, 8);
  return {
    username: `jane.${n}@example.com`,
    firstName: 'Jane',
    lastName: 'Doe',
    profilePhoto: 'https://cdn.example.com/jane.png',
    dateOfBirth: '31/01/1990',
    maritalStatus: 'single',
    gender: 'female',
    primaryResidence: {
      buildingNumber: '12',
      streetName: 'Main St',
      unitNumber: '3',
      city: 'Ottawa',
      provinceState: 'ON',
      postalZip: 'K1A 0B1',
      country: 'CA',
    },
    emails: [{ address: `jane.${n}@example.com`, primary: true, verified: false }],
    phones: [{ number: 6135550100, ext: 1, mobile: true, primary: true, verified: false }],
    settings: {
      notificationMethod: 'email',
      communicationLanguage: 'en-CA',
      preferredLanguage: 'fr-CA',
      country: 'CA',
      mfaDisabled: false,
      mfaMode: 'sometimes',
    },
    agreements: [{ locale: 'en-CA', type: 'tos', version: 1, consent: true }],
    referralCode: 'REF-1',
    cobrandId: 'cobrand-1',
    defaultTeam: 'team-1',
    ...over,
  };
}

/** Creates an account for the token's identity and returns its id. */
export async function createAccount(
  svc: UserService,
  token: string,
  body: Record<string, unknown> = fullAccount(),
): Promise<string> {
  const res = await svc.http().post('/api/v1/accounts').set(auth(token)).send(body);
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** The field names of a 400 problem body. */
export function fieldsOf(body: { errors?: Array<{ field: string }> }): string[] {
  return (body.errors ?? []).map((e) => e.field);
}
