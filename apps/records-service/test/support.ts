import { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import type { RecordRole, VaultRole } from '@vault/contracts';
import { bootTestApp, TestDatabase, TestIdentityProvider } from '@vault/platform/testing';
import { AppModule } from '../src/app/app.module';
import defaultPlans from '../src/capabilities/plans/default-plans.json';
import { createRecordsDatabase } from './records-database';

export interface Caller {
  token: string;
  openId: string;
  tenantId: string;
  username: string;
}

/** A booted records-service on its own database, with a token issuer and a SQL client. */
export class RecordsTestApp {
  private constructor(
    readonly app: INestApplication,
    readonly db: TestDatabase,
    readonly idp: TestIdentityProvider,
    readonly pg: Client,
    private readonly settings: Record<string, string>,
  ) {}

  static async start(prefix: string, env: Record<string, string> = {}): Promise<RecordsTestApp> {
    const db = await createRecordsDatabase(prefix);
    const idp = await TestIdentityProvider.start();
    const settings = {
      DATABASE_URL: db.url,
      VAULT_PLANS_FILE: '',
      VAULT_BRANDING_FILE: '',
      VAULT_INBOX_DOMAIN: 'inbox.vault.localhost',
      // These suites inspect the outbox itself: no relay or writer touches it (or the shared NATS).
      ACTIVITY_LOG_RELAY: 'off',
      ACTIVITY_LOG_WRITER: 'off',
      WEBHOOK_DISPATCHER: 'off',
      // The background encryption of plaintext blobs runs when a suite calls it (BlobEncryptionJob.pass).
      ENCRYPTION_JOB_INTERVAL_MS: '0',
      ...idp.env(),
      ...env,
    };
    const app = await bootTestApp(AppModule, settings);
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    return new RecordsTestApp(app, db, idp, pg, settings);
  }

  /**
   * Another instance of the service on the same database, token issuer and settings, with
   * `overrides` on top (e.g. its own background work turned off); the caller closes it.
   */
  bootInstance(overrides: Record<string, string> = {}): Promise<INestApplication> {
    return bootTestApp(AppModule, { ...this.settings, ...overrides });
  }

  async stop(): Promise<void> {
    await this.pg?.end();
    await this.app?.close();
    await this.idp?.stop();
    await this.db?.drop();
  }

  http() {
    return request(this.app.getHttpServer());
  }

  async caller(tenantId = 'tenant-a', username = `user-${randomUUID().slice(0, 8)}`): Promise<Caller> {
    const openId = `vault|${randomUUID()}`;
    return { token: await this.idp.token({ sub: openId, tid: tenantId, username }), openId, tenantId, username };
  }

  get(c: Caller, path: string) {
    return this.http().get(`/api/v1${path}`).set('Authorization', `Bearer ${c.token}`);
  }
  post(c: Caller, path: string, body: object = {}) {
    return this.http().post(`/api/v1${path}`).set('Authorization', `Bearer ${c.token}`).send(body);
  }
  put(c: Caller, path: string, body: object = {}) {
    return this.http().put(`/api/v1${path}`).set('Authorization', `Bearer ${c.token}`).send(body);
  }
  delete(c: Caller, path: string) {
    return this.http().delete(`/api/v1${path}`).set('Authorization', `Bearer ${c.token}`);
  }

  async createVault(c: Caller, body: object = {}): Promise<string> {
    const res = await this.post(c, '/vault', body).expect(201);
    return res.body.id as string;
  }

  async createRecord(c: Caller, vaultId: string, body: object = {}): Promise<string> {
    const res = await this.post(c, `/vault/vault-id/${vaultId}/records`, recordBody(body)).expect(200);
    return res.body.id as string;
  }

  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pg.query(text, params)).rows as T[];
  }

  async grantVaultRole(vaultId: string, c: Caller, role: VaultRole): Promise<void> {
    await this.sql(`INSERT INTO vault_memberships (vault_id, open_id, tenant_id, role) VALUES ($1, $2, $3, $4)`, [
      vaultId,
      c.openId,
      c.tenantId,
      role,
    ]);
  }

  async grantRecordRole(recordId: string, c: Caller, role: RecordRole): Promise<void> {
    await this.sql(`INSERT INTO record_memberships (record_id, open_id, tenant_id, role) VALUES ($1, $2, $3, $4)`, [
      recordId,
      c.openId,
      c.tenantId,
      role,
    ]);
  }

  /** Every mutable table, to prove a refused call changed nothing. */
  async snapshot(): Promise<string> {
    const tables = ['vaults', 'vault_licenses', 'vault_memberships', 'records', 'record_memberships', 'outbox_events'];
    const out: Record<string, unknown[]> = {};
    for (const t of tables) out[t] = await this.sql(`SELECT * FROM ${t} ORDER BY 1, 2`);
    return JSON.stringify(out);
  }

  async outbox(subject?: string) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads are read field by field in assertions
    type Payload = Record<string, any>;
    return this.sql<{ id: string; subject: string; vault_id: string; payload: Payload; published_at: Date | null }>(
      `SELECT * FROM outbox_events ${subject ? 'WHERE subject = $1' : ''} ORDER BY occurred_at, id`,
      subject ? [subject] : [],
    );
  }
}

/** The statements the service sends, seen at the pg client (spyOnStatements). */
export interface StatementSpy {
  /** Each statement's text (whitespace folded) and name (named statements), in the order sent. */
  readonly sent: { text: string; name?: string }[];
  /**
   * Runs `change` after each answer to a statement named `name` (or renamed from it), before the service sees that
   * answer (a change made meanwhile, by another writer); `undefined` stops it.
   */
  after(name: string, change: ((values: unknown[]) => Promise<unknown>) | undefined): void;
}

/**
 * Spies on pg's Client.query (whether TypeORM's query runner or a named statement on its pool
 * sends it), except on the suite's own client `own`; jest.restoreAllMocks() ends it.
 */
export function spyOnStatements(own: Client): StatementSpy {
  const hooks = new Map<string, (values: unknown[]) => Promise<unknown>>();
  const spy: StatementSpy = {
    sent: [],
    after: (name, change) => void (change ? hooks.set(name, change) : hooks.delete(name)),
  };
  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
    if (this === own) return query.apply(this, args);
    const config = (typeof args[0] === 'string' ? { text: args[0] } : args[0]) as {
      text: string;
      name?: string;
      values?: unknown[];
    };
    spy.sent.push({ text: String(config.text).replace(/\s+/g, ' ').trim(), name: config.name });
    // a statement renamed after a migration reshaped it (withStatementName) keeps its hook
    const hook = config.name ? hooks.get(config.name.replace(/__\d+$/, '')) : undefined;
    const answered = args.findIndex((a) => typeof a === 'function');
    if (hook && answered >= 0) {
      const callback = args[answered] as (err: unknown, res: unknown) => void;
      args[answered] = (err: unknown, res: unknown) =>
        void hook(config.values ?? []).then(
          () => callback(err, res),
          (failed: unknown) => callback(failed, undefined),
        );
    }
    return query.apply(this, args);
  } as typeof Client.prototype.query);
  return spy;
}

export function recordBody(overrides: object = {}): Record<string, unknown> {
  return {
    name: 'My passport',
    description: 'Blue cover',
    recordTypeName: 'identityDocs',
    recordSubtypeName: 'passport',
    uniqueReference: '20260101120000',
    storageLocation: 'Desk drawer',
    editable: true,
    recordDetails: { number: 'X123', country: 'CA' },
    ...overrides,
  };
}

/** Writes a plans file derived from the shipped default with some features changed. */
export function writePlansFile(changes: Record<string, Record<string, string>>, extra: object = {}): string {
  const file = JSON.parse(JSON.stringify(defaultPlans));
  for (const plan of file.plans) Object.assign(plan.features, changes[plan.id] ?? {});
  Object.assign(file, extra);
  const path = join(mkdtempSync(join(tmpdir(), 'plans-')), 'plans.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}
