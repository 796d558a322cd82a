import { ChildProcess, spawn } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { createTestDatabase, freePort, TestDatabase } from '../src/testing';

const REPO = path.join(__dirname, '../../..');
const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
// The slow request outlasts the delay, so it is still running when the server closes.
const SHUTDOWN_DELAY_MS = 2000;
const SLOW_MS = 3500;

interface Reply {
  status: number;
  body: string;
}

function get(port: number, urlPath: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The promise's value, or `fallback` after `ms` (the timer does not outlive it). */
async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitUntil<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe('graceful shutdown of a service process (runService)', () => {
  let db: TestDatabase;
  let child: ChildProcess | undefined;
  let output = '';
  let nc: NatsConnection | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('shutdown');
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (nc && !nc.isClosed()) await nc.close();
    await db.drop();
  });

  it('turns not-ready on SIGTERM, finishes the in-flight request and its NATS publish, then exits 0', async () => {
    const port = await freePort();
    child = spawn(
      process.execPath,
      ['-r', 'tsconfig-paths/register', '-r', '@swc-node/register', path.join(__dirname, 'fixtures/shutdown-app.ts')],
      {
        cwd: REPO,
        env: {
          ...process.env,
          SWC_NODE_PROJECT: path.join(__dirname, 'fixtures/tsconfig.json'),
          TS_NODE_PROJECT: path.join(REPO, 'tsconfig.base.json'),
          NODE_ENV: 'test',
          LOG_LEVEL: 'log',
          HOST: '127.0.0.1',
          PORT: String(port),
          DATABASE_URL: db.url,
          NATS_URL,
          SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child?.on('exit', (code, signal) => resolve({ code, signal })),
    );

    await waitUntil(
      'the app to be ready',
      async () => ((await get(port, '/health/ready')).status === 200 ? true : undefined),
      60_000,
    ).catch((e) => {
      throw new Error(`${e.message}\n${output}`);
    });

    nc = await connect({ servers: NATS_URL });
    const subject = `test.shutdown.${process.pid}.${Date.now()}`;
    const sub = nc.subscribe(subject, { max: 1 });
    const published = (async () => {
      for await (const m of sub) return m.string();
      return undefined;
    })();
    await nc.flush();

    const started = Date.now();
    const inFlight = get(port, `/api/v1/slow?ms=${SLOW_MS}&subject=${subject}`);
    await sleep(300); // the request is being handled
    child.kill('SIGTERM');

    // Not ready while draining (the server still answers during SHUTDOWN_DELAY_MS).
    const notReady = await waitUntil(
      'readiness to turn 503',
      async () => {
        const r = await get(port, '/health/ready');
        return r.status === 503 ? r : undefined;
      },
      SHUTDOWN_DELAY_MS,
    );
    expect(JSON.parse(notReady.body)).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect((await get(port, '/health/live')).status).toBe(200);

    // The in-flight request completes although shutdown began before it finished.
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ done: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLOW_MS);

    // Its NATS publish, made while the app was shutting down, is delivered (drained).
    expect(await within(published, 5000, 'not delivered')).toBe('finished');
    await nc.close();

    // The process exits by itself, with status 0, and stops listening.
    const result = await within(exited, 15_000, undefined);
    expect(result).toEqual({ code: 0, signal: null });
    await expect(get(port, '/health/live')).rejects.toThrow(/ECONNREFUSED/);
    expect(output).toMatch(/shutting down \(SIGTERM\)/);
  }, 90_000);
});
