import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { E2E_BOOTSTRAP } from './bootstrap-file';

const platform = require('../../../scripts/platform.cjs');

export const ADMIN_URL = process.env['TEST_DATABASE_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface E2ePlatform {
  launched: {
    stop(): Promise<void>;
    databases: Record<string, string>;
    ports: Record<string, number>;
    /** Each process's /metrics URL (a METRICS_PORT of its own). */
    metricsUrls: Record<string, string>;
    domain: string;
  };
  /** Namespace of the run's event streams and its databases' prefix. */
  run: string;
  /** The run's working folder (bootstrap file, certificates, mail, files). */
  dir: string;
}

/**
 * Starts the whole platform from its build output against real PostgreSQL (databases
 * made for this run) and real NATS, with `env` added to every app's environment.
 */
export async function startE2ePlatform(env: Record<string, string> = {}, browserOrigins: string[] = []): Promise<E2ePlatform> {
  const run = `e2e_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'vault-e2e-'));
  const bootstrapFile = path.join(dir, 'bootstrap.json');
  writeFileSync(bootstrapFile, JSON.stringify(withBrowserOrigins(browserOrigins)));
  const output: string[] = [];
  const launched = await platform
    .launchPlatform({
      postgresUrl: ADMIN_URL,
      natsUrl: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
      databases: {
        'developer-service': `${run}_developer`,
        'user-service': `${run}_user`,
        'records-service': `${run}_records`,
      },
      env: {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        VAULT_BOOTSTRAP_FILE: bootstrapFile,
        CERT_DIR: path.join(dir, 'certs'),
        MAIL_DIR: path.join(dir, 'mail'),
        FILE_STORAGE_DIR: path.join(dir, 'files'),
        EVENTS_NAMESPACE: run,
        ...env,
      },
      onOutput: (app: string, line: string) => {
        output.push(`[${app}] ${line}`);
        if (process.env['E2E_VERBOSE']) console.log(`[${app}] ${line}`);
      },
    })
    .catch((err: Error) => {
      console.error(output.join('\n'));
      throw err;
    });
  return { launched, run, dir };
}

/** The bootstrap file with `origins` added to the browser suite's application (alpha-web). */
function withBrowserOrigins(origins: string[]): typeof E2E_BOOTSTRAP {
  const file = structuredClone(E2E_BOOTSTRAP);
  for (const t of file.tenants) {
    for (const a of t.applications as { clientId: string; allowedOrigins?: string[] }[]) {
      if (a.clientId === 'alpha-web') a.allowedOrigins = [...(a.allowedOrigins ?? []), ...origins];
    }
  }
  return file;
}

/** Stops the platform and removes its databases, event streams and working folder. */
export async function stopE2ePlatform(p: E2ePlatform): Promise<void> {
  await p.launched.stop();
  await platform.dropDatabases(ADMIN_URL, Object.values(p.launched.databases));
  await deleteRunStreams(p.run);
  rmSync(p.dir, { recursive: true, force: true });
}

/** Removes the JetStream streams (and KV buckets) this run's namespace created on the shared NATS. */
async function deleteRunStreams(namespace: string): Promise<void> {
  const nc = await connect({ servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222' });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${namespace}_`) || name.startsWith(`KV_${namespace}_`)) await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
}
