import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NATS_SERVER_BIN = process.env['NATS_SERVER_BIN'] ?? '/usr/sbin/nats-server';

// the platform launcher's port picker (plain CommonJS, for `npm start` and the benches)
const launcher = require('../../../../scripts/platform.cjs') as { freePort: () => Promise<number> };

/**
 * A free TCP port for a child process to listen on, below the kernel's ephemeral range
 * (scripts/platform.cjs, freePort): one from `listen(0)` is ephemeral, and any outgoing
 * connection may take it before the child listens (EADDRINUSE).
 */
export function freePort(): Promise<number> {
  return launcher.freePort();
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => {
      s.destroy();
      resolve(false);
    });
    s.connect(port, '127.0.0.1');
  });
}

/**
 * A private nats-server with JetStream for one test run: its own free port and
 * a temporary file store. It can be stopped with any signal (SIGTERM, SIGKILL)
 * and started again on the same port with the same store, so tests can check
 * what survives a broker restart or crash.
 */
export class TestNatsServer {
  private proc?: ChildProcess;
  private exited?: Promise<void>;

  private constructor(
    readonly port: number,
    readonly storeDir: string,
  ) {}

  /** Starts a fresh server on a free port with an empty temporary store. */
  static async start(): Promise<TestNatsServer> {
    const server = new TestNatsServer(await freePort(), mkdtempSync(join(tmpdir(), 'nats-js-')));
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Starts the server (again) on the same port and store; resolves once it accepts connections. */
  async restart(): Promise<void> {
    if (this.running) throw new Error('nats-server is already running');
    const proc = spawn(NATS_SERVER_BIN, ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    this.proc = proc;
    this.exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`nats-server exited at start: ${stderr}`);
      if (await canConnect(this.port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nats-server did not accept connections on ${this.port}: ${stderr}`);
  }

  /** Sends `signal` (SIGTERM for a clean stop, SIGKILL for a crash) and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (!this.running || !this.proc) return;
    this.proc.kill(signal);
    await this.exited;
  }

  /** Same as `stop('SIGKILL')`: the process dies without flushing anything. */
  kill9(): Promise<void> {
    return this.stop('SIGKILL');
  }

  /** Stops the server and deletes its store. */
  async dispose(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
