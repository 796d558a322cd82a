import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { freePort, TestClock, TestNatsServer } from '@vault/platform/testing';
import { RunningGateway } from '../src/app/start-gateway';
import { bootGateway, tempDir } from './support/boot';
import { call, CallResult } from './support/client';
import { EchoUpstream } from './support/echo-upstream';
import { bearer, inOneWindow, parseRateLimit, uniqueBucket } from './support/rate-limit';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const ROOT = join(__dirname, '../../..');

async function deleteBucket(bucket: string, servers = NATS_URL): Promise<void> {
  const nc = await connect({ servers });
  try {
    await (await new Kvm(nc).open(bucket)).destroy();
  } catch {
    // never created
  } finally {
    await nc.close();
  }
}

function expectTooMany(res: CallResult, policy: string): void {
  expect(res.status).toBe(429);
  expect(res.json()).toMatchObject({ status: 429, code: 'too_many_requests', requestId: res.headers['x-request-id'] });
  const limit = parseRateLimit(res.headers['ratelimit']);
  expect(limit).toMatchObject({ policy, r: 0 });
  // Retry-After is the end of the refusing budget's window, never before it.
  expect(Number(res.headers['retry-after'])).toBe(limit.t);
  expect(limit.t).toBeGreaterThanOrEqual(1);
  expect(limit.t).toBeLessThanOrEqual(60);
}

describe('rate limits per caller, tenant and address (counters in NATS KV)', () => {
  const bucket = uniqueBucket('gw_limits');
  let upstream: EchoUpstream;
  let gw: RunningGateway;
  const get = (host: string, headers: Record<string, string> = {}, path = '/api/v1/x') =>
    call(gw.httpsPort, { host, path, headers });

  let clock: TestClock;

  beforeAll(async () => {
    // The gateway runs in this process: its clock starts these tests at the beginning of a
    // one-minute window instead of waiting for the next one.
    clock = TestClock.install();
    clock.toNextWindow(60_000);
    upstream = await EchoUpstream.start('user');
    gw = await bootGateway({
      USER_SERVICE_URL: upstream.url,
      DEVELOPER_SERVICE_URL: upstream.url,
      RECORDS_SERVICE_URL: upstream.url,
      MAX_JSON_BODY_BYTES: '16',
      RATE_LIMIT_STORE: 'nats',
      NATS_URL,
      RATE_LIMIT_BUCKET: bucket,
      RATE_LIMIT_CALLER_PER_MINUTE: '3',
      RATE_LIMIT_TENANT_PER_MINUTE: '5',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '1000',
    });
  });
  beforeEach(() => inOneWindow(10_000));
  afterAll(async () => {
    await gw?.app.close();
    await upstream?.stop();
    await deleteBucket(bucket);
    clock?.restore();
  });

  it('relays answers with RateLimit-Policy and RateLimit of the caller the token names', async () => {
    const res = await get('user-api.localhost', { authorization: bearer('t-headers', 'ann') });
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"caller";q=3;w=60, "tenant";q=5;w=60, "address";q=1000;w=60');
    expect(parseRateLimit(res.headers['ratelimit'])).toMatchObject({ policy: 'caller', r: 2 });
    const second = await get('records-api.localhost', { authorization: bearer('t-headers', 'ann') });
    expect(parseRateLimit(second.headers['ratelimit'])).toMatchObject({ policy: 'caller', r: 1 });
    // A module's own RateLimit fields never reach the client: the gateway's are the ones that hold.
    const own = await get('user-api.localhost', {
      authorization: bearer('t-headers', 'bob'),
      'x-test-response-headers': JSON.stringify({ ratelimit: '"module";r=99' }),
    });
    expect(parseRateLimit(own.headers['ratelimit'])).toMatchObject({ policy: 'caller', r: 2 });
  });

  it('gives two callers of one tenant their own budgets within the tenant budget, and other tenants theirs', async () => {
    const ann = { authorization: bearer('t-acme', 'ann') };
    const bob = { authorization: bearer('t-acme', 'bob') };
    const statuses = async (headers: Record<string, string>, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await get('user-api.localhost', headers)).status);
      return out;
    };
    expect(await statuses(ann, 3)).toEqual([200, 200, 200]);
    const annOver = await get('user-api.localhost', ann);
    expectTooMany(annOver, 'caller');
    // Bob has 3 of his own, but acme has 2 of its 5 left: the tenant budget refuses his third.
    expect(await statuses(bob, 2)).toEqual([200, 200]);
    expectTooMany(await get('user-api.localhost', bob), 'tenant');
    // Another tenant (with a caller of the same subject) is untouched.
    const globex = await get('user-api.localhost', { authorization: bearer('t-globex', 'ann') });
    expect(globex.status).toBe(200);
    expect(parseRateLimit(globex.headers['ratelimit'])).toMatchObject({ policy: 'caller', r: 2 });
  });

  it('limits requests without a token per address, with the headers on the 429', async () => {
    // Earlier tests spent no unauthenticated request; other addresses are separate (trusted proxies not set).
    const first = await get('developer-api.localhost');
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"anonymous";q=2;w=60, "address";q=1000;w=60');
    expect(parseRateLimit(first.headers['ratelimit'])).toMatchObject({ policy: 'anonymous', r: 1 });
    expect((await get('developer-api.localhost', { authorization: 'Basic YTpi' })).status).toBe(200);
    expectTooMany(await get('developer-api.localhost'), 'anonymous');
    // A caller with a token is not held by the unauthenticated budget of its address.
    expect((await get('developer-api.localhost', { authorization: bearer('t-anon', 'cy') })).status).toBe(200);
    // Health is not limited and carries no limit fields.
    const live = await get('developer-api.localhost', {}, '/health/live');
    expect(live.status).toBe(200);
    expect(live.headers['ratelimit']).toBeUndefined();
  });

  it("puts the headers on the gateway's own answers", async () => {
    const auth = { authorization: bearer('t-own', 'dee') };
    const unknown = await call(gw.httpsPort, { host: 'nobody.localhost', path: '/api/v1/x', headers: auth });
    expect(unknown.status).toBe(404);
    expect(parseRateLimit(unknown.headers['ratelimit'])).toMatchObject({ policy: 'caller', r: 2 });
    const tooLarge = await call(gw.httpsPort, {
      host: 'user-api.localhost',
      method: 'POST',
      path: '/api/v1/x',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ far: 'more than sixteen bytes' }),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers['ratelimit-policy']).toBe('"caller";q=3;w=60, "tenant";q=5;w=60, "address";q=1000;w=60');
    expect(parseRateLimit(tooLarge.headers['ratelimit'])).toMatchObject({ policy: 'caller', r: 1 });
  });

  it('counts a request whose token the module refused (401) against its address, not the identity it names', async () => {
    const forged = { authorization: bearer('t-victim', 'eve'), 'x-test-status': '401' };
    for (let i = 0; i < 3; i++) expect((await get('user-api.localhost', forged)).status).toBe(401);
    // The victim's caller budget is whole...
    const victim = await get('user-api.localhost', { authorization: bearer('t-victim', 'eve') });
    expect(victim.status).toBe(200);
    expect(parseRateLimit(victim.headers['ratelimit'])).toMatchObject({ policy: 'caller', r: 2 });
  });
});

describe('two gateway processes sharing one budget', () => {
  jest.setTimeout(90_000);
  const bucket = uniqueBucket('gw_shared');
  const processes: ChildProcess[] = [];
  let upstream: EchoUpstream;

  /** Starts src/main.ts as its own node process; resolves with its HTTPS port once it is ready. */
  async function startProcess(): Promise<number> {
    const [httpsPort, httpPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(ROOT, 'apps/gateway/src/main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        HTTPS_PORT: String(httpsPort),
        HTTP_PORT: String(httpPort),
        CERT_DIR: tempDir('gateway-proc-certs-'),
        USER_SERVICE_URL: upstream.url,
        DEVELOPER_SERVICE_URL: upstream.url,
        RECORDS_SERVICE_URL: upstream.url,
        RATE_LIMIT_STORE: 'nats',
        NATS_URL,
        RATE_LIMIT_BUCKET: bucket,
        RATE_LIMIT_SYNC_MS: '50',
        RATE_LIMIT_CALLER_PER_MINUTE: '10',
        RATE_LIMIT_TENANT_PER_MINUTE: '100',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '6',
        RATE_LIMIT_ADDRESS_PER_MINUTE: '1000',
        SWC_NODE_PROJECT: join(ROOT, 'tsconfig.base.json'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    processes.push(child);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`gateway process exited: ${output}`);
      const ready = await call(httpsPort, { host: 'localhost', path: '/health/ready' }).catch(() => undefined);
      if (ready?.status === 200) return httpsPort;
      if (Date.now() > deadline) throw new Error(`gateway process not ready: ${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  beforeAll(async () => {
    upstream = await EchoUpstream.start('user');
  });
  afterAll(async () => {
    await Promise.all(
      processes.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exitCode !== null || p.signalCode !== null) return resolve();
            p.once('exit', () => resolve());
            p.kill('SIGTERM');
          }),
      ),
    );
    await upstream?.stop();
    await deleteBucket(bucket);
  });

  it('spends one caller budget and one address budget across both processes', async () => {
    const [a, b] = await Promise.all([startProcess(), startProcess()]);
    await inOneWindow(15_000);
    const auth = { authorization: bearer('t-shared', 'ann') };
    const send = (port: number, headers: Record<string, string> = auth) =>
      call(port, { host: 'user-api.localhost', path: '/api/v1/x', headers });
    const settle = () => new Promise((r) => setTimeout(r, 400));

    for (let i = 0; i < 6; i++) expect((await send(a)).status).toBe(200);
    await settle();
    // Process B knows the 6 spent at A: 4 of the caller's 10 are left.
    const atB = await send(b);
    expect(atB.status).toBe(200);
    expect(parseRateLimit(atB.headers['ratelimit'])).toMatchObject({ policy: 'caller', r: 3 });
    for (let i = 0; i < 3; i++) expect((await send(b)).status).toBe(200);
    expectTooMany(await send(b), 'caller');
    await settle();
    // And A knows B spent the rest.
    expectTooMany(await send(a), 'caller');

    // The unauthenticated budget of the address (6) is shared the same way, alternating processes.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push((await send(i % 2 ? b : a, {})).status);
      await settle();
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(upstream.hits).toHaveLength(16);
  });
});

describe('rate limits while the counter store is unreachable', () => {
  let nats: TestNatsServer;
  let upstream: EchoUpstream;
  let gw: RunningGateway | undefined;
  let clock: TestClock;

  beforeAll(async () => {
    // In-process gateways: the tests start at the beginning of a window (see above).
    clock = TestClock.install();
    clock.toNextWindow(60_000);
    nats = await TestNatsServer.start();
    upstream = await EchoUpstream.start('user');
  });
  afterEach(async () => {
    await gw?.app.close();
    gw = undefined;
  });
  afterAll(async () => {
    await upstream?.stop();
    await nats?.dispose();
    clock?.restore();
  });

  const boot = (natsUrl: string) =>
    bootGateway({
      USER_SERVICE_URL: upstream.url,
      RATE_LIMIT_STORE: 'nats',
      NATS_URL: natsUrl,
      RATE_LIMIT_BUCKET: 'gateway_rate_limits',
      RATE_LIMIT_CALLER_PER_MINUTE: '3',
    });
  const statuses = async (port: number, tenant: string, n: number) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const headers = { authorization: bearer(tenant, 'ann') };
      out.push((await call(port, { host: 'user-api.localhost', path: '/api/v1/x', headers })).status);
    }
    return out;
  };

  it('goes on with the counts of the process alone when NATS stops (fails open, still limiting)', async () => {
    await inOneWindow(15_000);
    gw = await boot(nats.url);
    expect(await statuses(gw.httpsPort, 't-outage', 1)).toEqual([200]);
    await nats.stop();
    expect(await statuses(gw.httpsPort, 't-outage', 3)).toEqual([200, 200, 429]);
    await nats.restart();
  });

  it('starts when NATS is not reachable at all and limits in the process', async () => {
    await inOneWindow(15_000);
    const closed = `nats://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    gw = await boot(closed);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await statuses(gw.httpsPort, 't-no-store', 4)).toEqual([200, 200, 200, 429]);
  });
});
