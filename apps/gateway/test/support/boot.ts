import { mkdtempSync } from 'node:fs';
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
    ...env,
  });
  return startGateway({ shutdownHooks: false });
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
