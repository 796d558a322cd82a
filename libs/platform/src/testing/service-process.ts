import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './nats-server';

const ROOT = join(__dirname, '../../../..');

export interface ServiceProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
}

/**
 * Runs an app's real entry (`apps/<app>/src/main.ts`, compiled on the fly by SWC) with
 * `args` as a node process of its own, with the test process's environment plus `env`;
 * `output()` is what it has written so far (stdout and stderr).
 */
export function spawnAppEntry(
  app: string,
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, `apps/${app}/src/main.ts`), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.base.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

/**
 * Starts an app's real entry (spawnAppEntry) on a free loopback port, with the test
 * process's environment plus `env`, and resolves once its /health/ready answers
 * (rejects, with its output, when it exits or is not ready within a minute). The caller
 * stops it.
 */
export async function startServiceProcess(app: string, env: Record<string, string>): Promise<ServiceProcess> {
  const port = await freePort();
  const { child, output } = spawnAppEntry(app, [], {
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${app} exited: ${output()}`);
    const ready = await fetch(`${base}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { child, base };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${app} not ready: ${output()}`);
}

/** Stops a process of startServiceProcess with SIGTERM (a graceful stop) and waits for its exit. */
export async function stopServiceProcess(p: ServiceProcess | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}
