import { metricsRegistry } from '@vault/platform/observability';
import { SseClient } from './sse-client';
import { Caller, RecordsTestApp } from './support';

/** The value of one series in the Prometheus text of this process (0 when absent). */
const sample = async (series: string): Promise<number> => {
  const line = (await metricsRegistry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

/**
 * Live change-feed streams are capped per caller and per tenant (docs/change-feed.md,
 * Limits): one more is 429 with Retry-After before anything is read, a closed stream frees
 * its slot, and the open and refused streams are counted in the metrics.
 */
describe('change feed stream caps (real PostgreSQL)', () => {
  jest.setTimeout(60_000);
  let t: RecordsTestApp;
  const open: SseClient[] = [];

  beforeAll(async () => {
    t = await RecordsTestApp.start('records_feed_caps', {
      CHANGE_FEED_WRITER: 'off',
      CHANGE_FEED_HEARTBEAT_MS: '300',
      CHANGE_FEED_MAX_STREAMS_PER_CALLER: '2',
      CHANGE_FEED_MAX_STREAMS_PER_TENANT: '3',
      CHANGE_FEED_STREAM_RETRY_AFTER_SECONDS: '7',
    });
  });
  afterEach(async () => {
    for (const c of open.splice(0)) c.close();
    await waitForOpen(0);
  });
  afterAll(async () => {
    await t?.stop();
  });

  const stream = async (c: Caller, vaultId: string) => {
    const client = await SseClient.open(t.app, `/vault/vault-id/${vaultId}/events`, {
      authorization: `Bearer ${c.token}`,
      accept: 'text/event-stream',
    });
    open.push(client);
    return client;
  };
  const waitForOpen = async (n: number) => {
    for (let i = 0; i < 100 && (await sample('change_feed_streams_open')) !== n; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await sample('change_feed_streams_open')).toBe(n);
  };
  const expectRefused = async (c: SseClient, cap: RegExp) => {
    await c.until((x) => x.ended, 'the refusal to end');
    expect(c.status).toBe(429);
    expect(c.headers['retry-after']).toBe('7');
    expect(c.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(c.body)).toMatchObject({ status: 429, code: 'too_many_requests', detail: expect.stringMatching(cap) });
  };

  it('refuses a third stream of one caller with 429 and Retry-After, and takes it once one closed', async () => {
    const owner = await t.caller('tenant-caps-a');
    const vaultId = await t.createVault(owner);
    const refusedBefore = await sample('change_feed_streams_refused_total{cap="caller"}');
    const [first, second] = [await stream(owner, vaultId), await stream(owner, vaultId)];
    expect([first.status, second.status]).toEqual([200, 200]);
    await waitForOpen(2);

    await expectRefused(await stream(owner, vaultId), /per caller/);
    expect(await sample('change_feed_streams_refused_total{cap="caller"}')).toBe(refusedBefore + 1);
    // paging is not a stream: it is not capped
    await t.get(owner, `/vault/vault-id/${vaultId}/events`).expect(200);

    first.close();
    await waitForOpen(1);
    const again = await stream(owner, vaultId);
    expect(again.status).toBe(200);
    await again.until((c) => c.comments.includes('heartbeat'), 'a heartbeat');
  });

  it("caps the tenant's streams across its callers, and not another tenant's", async () => {
    const callers = [await t.caller('tenant-caps-b'), await t.caller('tenant-caps-b'), await t.caller('tenant-caps-b')];
    const vaults = await Promise.all(callers.map((c) => t.createVault(c)));
    const refusedBefore = await sample('change_feed_streams_refused_total{cap="tenant"}');
    expect((await stream(callers[0], vaults[0])).status).toBe(200);
    expect((await stream(callers[0], vaults[0])).status).toBe(200);
    expect((await stream(callers[1], vaults[1])).status).toBe(200);
    await waitForOpen(3);
    await expectRefused(await stream(callers[2], vaults[2]), /tenant/);
    expect(await sample('change_feed_streams_refused_total{cap="tenant"}')).toBe(refusedBefore + 1);

    const other = await t.caller('tenant-caps-c');
    expect((await stream(other, await t.createVault(other))).status).toBe(200);
    await waitForOpen(4);
  });

  it('gives the slot back when the stream is refused after it was taken (a malformed cursor)', async () => {
    const owner = await t.caller('tenant-caps-d');
    const vaultId = await t.createVault(owner);
    for (let i = 0; i < 3; i++) {
      const bad = await SseClient.open(t.app, `/vault/vault-id/${vaultId}/events?cursor=nope`, {
        authorization: `Bearer ${owner.token}`,
        accept: 'text/event-stream',
      });
      await bad.until((c) => c.ended, 'the refusal');
      expect(bad.status).toBe(400);
    }
    await waitForOpen(0);
    expect((await stream(owner, vaultId)).status).toBe(200);
  });
});
