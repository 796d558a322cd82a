import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunningGateway, startGateway } from '../../src/app/start-gateway';

/** Boots the gateway on ephemeral loopback ports with the given variables. */
export async function bootGateway(env: Record<string, string>): Promise<RunningGateway> {
  for (const k of ['TLS_CERT_FILE', 'TLS_KEY_FILE']) delete process.env[k];
  Object.assign(process.env, {
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    HTTPS_PORT: '0',
    HTTP_PORT: '0',
    CERT_DIR: tempDir('gateway-certs-'),
    // Suites that share counters between gateways say so (RATE_LIMIT_STORE=nats and a bucket of their own).
    RATE_LIMIT_STORE: 'memory',
    ...env,
  });
  return startGateway({ shutdownHooks: false });
}

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary folder, removed after the test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}
