import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { E2E_BOOTSTRAP } from './bootstrap-file';

const platform = require('../../../scripts/platform.cjs');

const ADMIN_URL = process.env['TEST_DATABASE_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Starts the whole platform from its build output against real PostgreSQL
 * (databases made for this run) and real NATS, and records where it listens.
 */
export default async function globalSetup(): Promise<void> {
  const run = `e2e_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'vault-e2e-'));
  const bootstrapFile = path.join(dir, 'bootstrap.json');
  writeFileSync(bootstrapFile, JSON.stringify(E2E_BOOTSTRAP));
  const databases = {
    'developer-service': `${run}_developer`,
    'user-service': `${run}_user`,
    'records-service': `${run}_records`,
  };
  const output: string[] = [];
  const launched = await platform.launchPlatform({
    postgresUrl: ADMIN_URL,
    natsUrl: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    databases,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      VAULT_BOOTSTRAP_FILE: bootstrapFile,
      CERT_DIR: path.join(dir, 'certs'),
      MAIL_DIR: path.join(dir, 'mail'),
      FILE_STORAGE_DIR: path.join(dir, 'files'),
      EVENTS_NAMESPACE: run,
    },
    onOutput: (app: string, line: string) => {
      output.push(`[${app}] ${line}`);
      if (process.env['E2E_VERBOSE']) console.log(`[${app}] ${line}`);
    },
  }).catch((err: Error) => {
    console.error(output.join('\n'));
    throw err;
  });
  (globalThis as Record<string, unknown>)['__PLATFORM__'] = launched;
  Object.assign(process.env, {
    E2E_GATEWAY_PORT: String(launched.ports.https),
    E2E_HTTP_PORT: String(launched.ports.http),
    E2E_DEVELOPER_PORT: String(launched.ports['developer-service']),
    E2E_USER_PORT: String(launched.ports['user-service']),
    E2E_RECORDS_PORT: String(launched.ports['records-service']),
    E2E_DOMAIN: launched.domain,
    E2E_DATABASES: JSON.stringify(launched.databases),
    E2E_ADMIN_URL: ADMIN_URL,
    E2E_WORK_DIR: dir,
    E2E_EVENTS_NAMESPACE: run,
  });
}
