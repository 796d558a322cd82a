import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { EVENT_STREAMS, SUBJECTS } from '@vault/contracts';
import { EventNamespace, ensureStream } from '@vault/platform/events';
import { TestNatsServer } from '@vault/platform/testing';
import { startJetStreamConsumers } from '../src/app/jetstream-consumers';
import { uniqueNamespace, waitFor } from './activity-log.harness';
import { RecordsTestApp } from './support';

interface Account {
  accountId: string;
  openId: string;
  username: string;
  version: number;
  lastName: string;
}

/**
 * The account directory kept from user-service's account events by a durable
 * consumer of the service, against a private nats-server: restarts of NATS and of
 * the consumer lose no account and double none, and late or repeated events change
 * nothing.
 */
describe('account directory from the account events', () => {
  jest.setTimeout(120_000);
  const tenantId = 'tenant-directory';
  let nats: TestNatsServer;
  let t: RecordsTestApp;
  let namespace: EventNamespace;
  let app: INestApplication | undefined;
  const accounts: Account[] = [];

  /** Another records-service instance on the test database and settings, its JetStream consumers started. */
  const startService = async () => {
    const instance = await t.bootInstance();
    await startJetStreamConsumers(instance);
    return instance;
  };

  /** What user-service's relay publishes: the account's full state, the event id as Nats-Msg-Id. */
  const publish = async (subject: string, a: Account, active = true) => {
    const nc: NatsConnection = await connect({ servers: nats.url });
    try {
      const body = { ...a, tenantId, firstName: 'Ada', active, occurredAt: new Date().toISOString() };
      await jetstream(nc).publish(namespace.subject(subject), JSON.stringify(body), { msgID: randomUUID() });
    } finally {
      await nc.close();
    }
  };
  const directory = () =>
    t.sql<{ open_id: string; version: string; last_name: string; active: boolean }>(
      'SELECT open_id, version, last_name, active FROM account_directory WHERE tenant_id = $1 ORDER BY open_id',
      [tenantId],
    );
  /** Every account once, at its latest version. */
  const expectDirectoryCurrent = async () => {
    await waitFor(
      async () => {
        const rows = await directory();
        return (
          rows.length === accounts.length &&
          rows.every((r) => Number(r.version) === accounts.find((a) => a.openId === r.open_id)?.version)
        );
      },
      30_000,
      'directory caught up',
    );
    const rows = await directory();
    expect(rows.map((r) => r.open_id)).toEqual(accounts.map((a) => a.openId).sort());
    for (const r of rows) expect(r.last_name).toBe(accounts.find((a) => a.openId === r.open_id)?.lastName);
  };
  const updateAll = async (from: number, to: number) => {
    for (const a of accounts.slice(from, to)) {
      a.version += 1;
      a.lastName = `Lovelace ${a.version}`;
      await publish(SUBJECTS.accountUpdated, a);
    }
  };

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    const ns = uniqueNamespace('directory');
    namespace = new EventNamespace(ns);
    t = await RecordsTestApp.start('records_directory', {
      NATS_URL: nats.url,
      EVENTS_NAMESPACE: ns,
      ACTIVITY_LOG_RELAY: 'off',
      ACTIVITY_LOG_WRITER: 'off',
    });
    // the stream is user-service's; it exists before its first event
    const nc = await connect({ servers: nats.url });
    await ensureStream(await jetstreamManager(nc), {
      name: namespace.stream(EVENT_STREAMS.accountEvents.name),
      subjects: EVENT_STREAMS.accountEvents.subjects.map((s) => namespace.subject(s)),
      replicas: 1,
      duplicateWindowMs: 120_000,
    });
    await nc.close();
    for (let i = 0; i < 30; i++) {
      accounts.push({
        accountId: randomUUID(),
        openId: `vault|${randomUUID()}`,
        username: `user${i}@example.com`,
        version: 1,
        lastName: 'Lovelace',
      });
    }
  });
  afterAll(async () => {
    await app?.close();
    await t?.stop();
    await nats?.dispose();
  });

  it('takes every created account', async () => {
    app = await startService();
    for (const a of accounts) await publish(SUBJECTS.accountCreated, a);
    await expectDirectoryCurrent();
  });

  it('loses nothing when NATS is killed and restarted between events', async () => {
    await updateAll(0, 15);
    await nats.kill9();
    await nats.restart();
    await updateAll(15, 30);
    await expectDirectoryCurrent();
  });

  it('loses nothing when the consumer stops mid-stream and another instance takes over', async () => {
    await updateAll(0, 30);
    await app?.close();
    app = undefined;
    await updateAll(0, 10);
    app = await startService();
    await expectDirectoryCurrent();
  });

  it('ignores late and repeated events, and ends the memberships of a deleted account', async () => {
    const stale = { ...accounts[0], version: 1, lastName: 'Stale' };
    await publish(SUBJECTS.accountUpdated, stale);
    await publish(SUBJECTS.accountUpdated, accounts[1]);
    const deleted = accounts[2];
    const owner = await t.caller(tenantId);
    const vaultId = await t.createVault(owner);
    await t.sql(`INSERT INTO vault_memberships (vault_id, open_id, tenant_id, role) VALUES ($1, $2, $3, 'vault_viewer')`, [
      vaultId,
      deleted.openId,
      tenantId,
    ]);
    deleted.version += 1;
    await publish(SUBJECTS.accountDeleted, deleted, false);
    await waitFor(
      async () => (await directory()).some((r) => r.open_id === deleted.openId && !r.active),
      30_000,
      'deletion applied',
    );
    await expectDirectoryCurrent();
    expect((await directory()).filter((r) => !r.active).map((r) => r.open_id)).toEqual([deleted.openId]);
    expect(await t.sql('SELECT open_id FROM vault_memberships WHERE vault_id = $1', [vaultId])).toEqual([
      { open_id: owner.openId },
    ]);
    const [ended] = await t.outbox(SUBJECTS.collaboratorDeleted);
    expect(ended.payload).toMatchObject({
      vault: { id: vaultId },
      collaborator: { openId: deleted.openId, role: 'vault_viewer' },
    });
  });
});
