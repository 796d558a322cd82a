import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConsumerUpdateConfig, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { EventNamespace } from '@vault/platform/events';
import {
  ServiceProcess,
  startServiceProcess,
  stopServiceProcess,
  TestDatabase,
  TestIdentityProvider,
  TestNatsServer,
} from '@vault/platform/testing';
import { Client } from 'pg';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { createRecordsDatabase } from './records-database';
import { recordBody, type Caller } from './support';

/** An answer of the service: its status and parsed JSON body. */
export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are read field by field in assertions
  body: any;
}

/**
 * records-service as real OS processes (its `main.ts`, startServiceProcess) on one
 * PostgreSQL database and a private nats-server that tests may stop, kill and restart;
 * with a token issuer, a SQL client and HTTP helpers that name the process to call.
 * Processes can be stopped with SIGTERM or killed with SIGKILL and started again.
 */
export class RecordsProcesses {
  private readonly running = new Set<ServiceProcess>();

  private constructor(
    readonly nats: TestNatsServer,
    readonly db: TestDatabase,
    readonly idp: TestIdentityProvider,
    readonly pg: Client,
    private readonly dir: string,
    private readonly env: Record<string, string>,
  ) {}

  /** A private NATS, a fresh database and a token issuer; `env` is given to every process. */
  static async create(prefix: string, env: Record<string, string>): Promise<RecordsProcesses> {
    const nats = await TestNatsServer.start();
    const db = await createRecordsDatabase(prefix);
    const idp = await TestIdentityProvider.start();
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
    return new RecordsProcesses(nats, db, idp, pg, dir, {
      ...idp.env(),
      DATABASE_URL: db.url,
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: uniqueNamespace(prefix),
      OUTBOX_RELAY_POLL_MS: '100',
      ACTIVITY_LOG_WRITER: 'off',
      CHANGE_FEED_WRITER: 'off',
      WEBHOOK_DISPATCHER: 'off',
      VAULT_PLANS_FILE: '',
      VAULT_BRANDING_FILE: '',
      VAULT_INBOX_DOMAIN: 'inbox.vault.localhost',
      FILE_STORAGE: 'fs',
      FILE_STORAGE_DIR: dir,
      ...env,
    });
  }

  /** Starts a records-service process (migrations run by the first); resolves once it is ready. */
  async start(extra: Record<string, string> = {}): Promise<ServiceProcess> {
    const p = await startServiceProcess('records-service', { ...this.env, ...extra });
    this.running.add(p);
    p.child.once('exit', () => this.running.delete(p));
    return p;
  }

  /** Ends a process: SIGTERM (a graceful stop) or SIGKILL (no shutdown hook runs). */
  async stop(p: ServiceProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    if (signal === 'SIGTERM') return stopServiceProcess(p);
    if (p.child.exitCode !== null || p.child.signalCode !== null) return;
    const exited = new Promise((r) => p.child.once('exit', r));
    p.child.kill('SIGKILL');
    await exited;
  }

  /**
   * Changes the settings of a durable consumer of a stream (`VAULT_EVENTS`) of the
   * namespace, once a process has created it.
   */
  async updateConsumer(stream: string, durable: string, config: Partial<ConsumerUpdateConfig>): Promise<void> {
    const nc = await connect({ servers: this.nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      const name = new EventNamespace(this.env['EVENTS_NAMESPACE']).stream(stream);
      await waitFor(
        async () => (await jsm.consumers.info(name, durable).catch(() => null)) !== null,
        30_000,
        `consumer ${durable}`,
      );
      await jsm.consumers.update(name, durable, config);
    } finally {
      await nc.close();
    }
  }

  /** Kills what is still running and removes the database, NATS store and files. */
  async dispose(): Promise<void> {
    for (const p of [...this.running]) await this.stop(p, 'SIGKILL');
    await this.pg?.end();
    await this.idp?.stop();
    await this.db?.drop();
    await this.nats?.dispose();
    rmSync(this.dir, { recursive: true, force: true });
  }

  async caller(tenantId = 'tenant-a'): Promise<Caller> {
    const openId = `vault|${randomUUID()}`;
    const username = `user-${randomUUID().slice(0, 8)}`;
    return { token: await this.idp.token({ sub: openId, tid: tenantId, username }), openId, tenantId, username };
  }

  /** Calls `/api/v1{path}` of process `p` as `c`. */
  async call(p: ServiceProcess, c: Caller, method: string, path: string, body?: object): Promise<Answer> {
    const res = await fetch(`${p.base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${c.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** Like `call`, failing with the answer when its status is not `status`. */
  async expect(status: number, p: ServiceProcess, c: Caller, method: string, path: string, body?: object): Promise<Answer> {
    const res = await this.call(p, c, method, path, body);
    if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  }

  async createVault(p: ServiceProcess, c: Caller, name = 'Vault'): Promise<string> {
    return (await this.expect(201, p, c, 'POST', '/vault', { name })).body.id;
  }

  async createRecord(p: ServiceProcess, c: Caller, vaultId: string, name: string): Promise<string> {
    return (await this.expect(200, p, c, 'POST', `/vault/vault-id/${vaultId}/records`, recordBody({ name }))).body.id;
  }

  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pg.query(text, params)).rows as T[];
  }

  /** Ids of the vault's outbox events on these subjects, in the order they were written. */
  async outboxIds(vaultId: string, subjects: string[]): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      `SELECT id FROM outbox_events WHERE vault_id = $1 AND subject = ANY($2) ORDER BY occurred_at, id`,
      [vaultId, subjects],
    );
    return rows.map((r) => r.id);
  }
}

/** The port of a service process (for clients that take one). */
export const portOf = (p: ServiceProcess) => Number(new URL(p.base).port);
