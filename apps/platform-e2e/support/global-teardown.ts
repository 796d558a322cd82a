import { rmSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

const platform = require('../../../scripts/platform.cjs');

export default async function globalTeardown(): Promise<void> {
  const launched = (globalThis as Record<string, unknown>)['__PLATFORM__'] as
    | { stop(): Promise<void>; databases: Record<string, string> }
    | undefined;
  if (!launched) return;
  await launched.stop();
  await platform.dropDatabases(process.env['E2E_ADMIN_URL'], Object.values(launched.databases));
  await deleteRunStreams(process.env['E2E_EVENTS_NAMESPACE']);
  if (process.env['E2E_WORK_DIR']) rmSync(process.env['E2E_WORK_DIR'], { recursive: true, force: true });
}

/** Removes the JetStream streams this run's namespace created on the shared NATS. */
async function deleteRunStreams(namespace: string | undefined): Promise<void> {
  if (!namespace) return;
  const nc = await connect({ servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222' });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${namespace}_`)) await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
}
