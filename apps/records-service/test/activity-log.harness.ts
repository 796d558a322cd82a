import { randomBytes, randomUUID } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { SUBJECTS, type Subject, type VaultEventBase } from '@vault/contracts';
import { deleteStreams } from '@vault/platform/events';
import { dataSourceOptions } from '@vault/platform/persistence';
import { DataSource } from 'typeorm';
import { OutboxRelayService } from '../src/capabilities/events/outbox-relay.service';
import { ActivityLogRunner, ActivityLogRoles } from '../src/features/activity-log-pipeline/activity-log.runner';
import { ActivityLogStreams } from '../src/features/activity-log-pipeline/activity-log.streams';
import { startActivityLogWriter } from '../src/features/activity-log-pipeline/activity-log.transport';
import { ACTIVITY_LOG_CONSUMER } from '../src/features/activity-log-pipeline/activity-log.writer';
import { workerModule } from '@vault/platform/bootstrap';
import { activityLogWorker } from '../src/features/activity-log-pipeline/activity-log.worker';
import { ENTITIES } from '../src/persistence/entities';
import { OutboxEventPublisher } from '../src/capabilities/events/outbox.publisher';
import { MIGRATIONS } from '../src/migrations';

/** A unique events namespace per test run, so runs on a shared NATS never meet. */
export const uniqueNamespace = (tag: string) => `t_${tag}_${randomBytes(4).toString('hex')}`;

export async function migratedDataSource(url: string): Promise<DataSource> {
  const ds = new DataSource({ ...dataSourceOptions(url, { entities: ENTITIES, migrations: MIGRATIONS }, true) });
  await ds.initialize();
  return ds;
}

/** A relay and/or writer process (the worker module), with its own NATS and DB connections. */
export interface Worker {
  ctx: INestApplication;
  relay: OutboxRelayService;
  /** The writer's counts since start (its JetStream consumer). */
  writer: { processed: number; deadLettered: number };
  streams: ActivityLogStreams;
  close(): Promise<void>;
}

const appliedEnv = new Set<string>();

export async function startWorker(env: Record<string, string>, roles: ActivityLogRoles): Promise<Worker> {
  // The env is read when the context boots: drop what an earlier worker of this run set.
  for (const key of appliedEnv) delete process.env[key];
  const applied = { NODE_ENV: 'test', DB_MIGRATE_ON_START: 'false', ...env };
  Object.assign(process.env, applied);
  Object.keys(applied).forEach((k) => appliedEnv.add(k));
  // As runWorker boots it: a hybrid app (no HTTP server) with the writer's transport connected.
  const ctx = await NestFactory.create(workerModule(activityLogWorker(roles)), { logger: ['error'], bodyParser: false });
  const transport = roles.writer ? await startActivityLogWriter(ctx) : undefined;
  ctx.enableShutdownHooks();
  await ctx.init();
  await ctx.get(ActivityLogRunner).ready();
  await transport?.ready();
  let closed = false;
  return {
    ctx,
    relay: ctx.get(OutboxRelayService),
    writer: {
      get processed() {
        return transport?.stats(ACTIVITY_LOG_CONSUMER.durable).processed ?? 0;
      },
      get deadLettered() {
        return transport?.stats(ACTIVITY_LOG_CONSUMER.durable).deadLettered ?? 0;
      },
    },
    streams: ctx.get(ActivityLogStreams),
    close: async () => {
      if (closed) return;
      closed = true;
      await ctx.close();
    },
  };
}

export interface Vault {
  id: string;
  name: string;
}

export const actor = (name = 'Ann') => ({ openId: `vault|${name.toLowerCase()}`, username: name });

export function recordEvent(tenantId: string, vault: Vault, recordName: string, who = actor()) {
  return {
    tenantId,
    actor: who,
    vault,
    occurredAt: new Date().toISOString(),
    record: { id: randomUUID(), name: recordName },
    recordTypeName: 'identification',
  };
}

const publisher = new OutboxEventPublisher();

/**
 * One business operation: its outbox row written in a transaction, committed or
 * rolled back (as a failed change would be). Returns the event id.
 */
export async function operation(
  ds: DataSource,
  subject: Subject,
  payload: VaultEventBase,
  outcome: 'commit' | 'rollback' = 'commit',
): Promise<string> {
  let id = '';
  await ds
    .transaction(async (m) => {
      id = await publisher.publish(m, subject, payload);
      if (outcome === 'rollback') throw new RollbackError();
    })
    .catch((err) => {
      if (!(err instanceof RollbackError)) throw err;
    });
  return id;
}
class RollbackError extends Error {}

/** Commits a record-created operation (and rolls one back every `rollbackEvery`). */
export async function produce(
  ds: DataSource,
  tenantId: string,
  vault: Vault,
  count: number,
  opts: { perSecond?: number; rollbackEvery?: number; committed: string[]; rolledBack: string[] },
): Promise<void> {
  const gap = opts.perSecond ? 1000 / opts.perSecond : 0;
  for (let i = 0; i < count; i++) {
    const rollback = opts.rollbackEvery !== undefined && i % opts.rollbackEvery === opts.rollbackEvery - 1;
    const id = await operation(
      ds,
      SUBJECTS.recordCreated,
      recordEvent(tenantId, vault, `Record ${i}`) as unknown as VaultEventBase,
      rollback ? 'rollback' : 'commit',
    );
    (rollback ? opts.rolledBack : opts.committed).push(id);
    if (gap) await new Promise((r) => setTimeout(r, gap));
  }
}

/** Log rows per event id. */
export async function entryCounts(ds: DataSource): Promise<Map<string, number>> {
  const rows: { event_id: string; n: string }[] = await ds.query(
    `SELECT event_id, count(*) AS n FROM activity_log_entries GROUP BY event_id`,
  );
  return new Map(rows.map((r) => [r.event_id, Number(r.n)]));
}

export async function waitFor(cond: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * Waits until every committed event is logged, then checks each has exactly one
 * entry, no rolled-back event has one, and the table holds nothing else.
 */
export async function expectExactlyOnce(
  ds: DataSource,
  committed: string[],
  rolledBack: string[],
  timeoutMs = 30_000,
): Promise<void> {
  await waitFor(
    async () => {
      const counts = await entryCounts(ds);
      return committed.every((id) => counts.has(id));
    },
    timeoutMs,
    `${committed.length} log entries`,
  );
  const counts = await entryCounts(ds);
  const wrong = committed.filter((id) => counts.get(id) !== 1);
  expect(wrong).toEqual([]);
  expect(rolledBack.filter((id) => counts.has(id))).toEqual([]);
  // Nothing else was logged either (each record event makes one row).
  const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM activity_log_entries`);
  expect(n).toBe(committed.length);
}

/** Deletes a namespace's streams (main and dead-letter) on the given server. */
export async function deleteNamespaceStreams(natsUrl: string, streams: string[]): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    await deleteStreams(await jetstreamManager(nc), streams);
  } finally {
    await nc.close();
  }
}
