import { freePort } from '@vault/platform/testing';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { call } from './client';
import { tempDir } from './boot';

const ROOT = join(__dirname, '../../../..');

export interface GatewayProcess {
  child: ChildProcess;
  httpsPort: number;
  /** Everything the process wrote so far. */
  output(): string;
  stop(): Promise<void>;
}

/** The gateway's source entry, compiled on the fly by SWC. */
export const GATEWAY_SOURCE = ['-r', '@swc-node/register', join(ROOT, 'apps/gateway/src/main.ts')];

/**
 * Starts the gateway's real entry (`args`: the source by default, or the built bundle)
 * as a process of its own on free loopback ports, with `env` on top of the test
 * process's, and resolves once it answers /health/ready over HTTPS.
 */
export async function startGatewayProcess(env: Record<string, string>, args = GATEWAY_SOURCE): Promise<GatewayProcess> {
  const httpsPort = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'error',
      HOST: '127.0.0.1',
      HTTPS_PORT: String(httpsPort),
      HTTP_PORT: String(await freePort()),
      CERT_DIR: tempDir('gateway-process-certs-'),
      RATE_LIMIT_STORE: 'memory',
      SWC_NODE_PROJECT: join(ROOT, 'tsconfig.base.json'),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`gateway exited: ${out}`);
    const ready = await call(httpsPort, { host: 'localhost', path: '/health/ready' }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { child, httpsPort, output: () => out, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`gateway not ready: ${out}`);
}
