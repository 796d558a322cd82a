import { Client } from 'pg';
import { RateLimitedError, type RetryEvent, type VaultClient } from '@vault/sdk';
import { domain, setupValue } from '../support/client';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { sdkFor } from '../support/sdk';

/** Rows of the records database matching `sql` (one parameter). */
async function count(sql: string, param: string): Promise<number> {
  const url = new URL(setupValue('E2E_ADMIN_URL'));
  url.pathname = `/${JSON.parse(setupValue('E2E_DATABASES'))['records-service']}`;
  const pg = new Client({ connectionString: url.toString() });
  await pg.connect();
  try {
    return Number((await pg.query(sql, [param])).rows[0].n);
  } finally {
    await pg.end();
  }
}

/** The SDK's policy against a network and a platform that misbehave (support/fault-proxy.ts). */
describe('SDK through a fault proxy', () => {
  let proxy: FaultProxy;
  let vault: VaultClient;
  const retries: RetryEvent[] = [];

  beforeAll(async () => {
    proxy = await startFaultProxy(Number(setupValue('E2E_GATEWAY_PORT')));
    const via = (m: string) => `http://${m}-api.${domain()}:${proxy.port}/api/v1`;
    vault = sdkFor('sol@alpha.example', 'sol-password-1', {
      baseUrls: { developer: via('developer'), user: via('user'), records: via('records') },
      retry: { maxAttempts: 5, baseDelayMs: 50 },
      onRetry: (e) => retries.push(e),
    });
    await vault.accounts.create({ username: 'sol@alpha.example', firstName: 'Sol', lastName: 'Faults' });
  });
  afterAll(() => proxy.close());

  it('creates one vault when the answer is lost after the commit, then 429 and 503 come back', async () => {
    retries.length = 0;
    proxy.plan('POST', '/api/v1/vault', [
      { kind: 'drop-after-commit' },
      { kind: 'answer', status: 429, headers: { 'retry-after': '1' } },
      { kind: 'answer', status: 503 },
    ]);
    const id = await vault.vaults.create({ name: 'Survives faults' });

    const posts = proxy.seen.filter((s) => s.method === 'POST' && s.path === '/api/v1/vault');
    expect(posts.map((s) => s.fault ?? 'forwarded')).toEqual(['drop-after-commit', 'answer', 'answer', 'forwarded']);
    // One key for the logical call, on every attempt.
    const keys = new Set(posts.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    // The platform ran it once: the second forwarded attempt is the first answer replayed.
    expect(posts[0].upstreamStatus).toBe(201);
    expect(posts[3].upstreamStatus).toBe(201);
    expect(posts[3].upstreamHeaders?.['idempotency-replayed']).toBe('true');
    expect(await count(`SELECT count(*) AS n FROM vaults WHERE name = $1`, 'Survives faults')).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM vaults WHERE id = $1`, id)).toBe(1);

    // It waited as told: Retry-After 1 s after the 429, backoff otherwise.
    expect(retries.map((r) => [r.attempt, r.status ?? 'no answer', r.told])).toEqual([
      [1, 'no answer', false],
      [2, 429, true],
      [3, 503, false],
    ]);
    expect(retries[1].delayMs).toBe(1000);
    // (timers may fire a few ms early against the clock: the margin is not a wait the SDK skipped)
    expect(posts[2].at - posts[1].at).toBeGreaterThanOrEqual(980);
  });

  it('retries a read after 503s and stops at a 429 that asks for longer than it may wait', async () => {
    const id = await vault.vaults.create({ name: 'Read under faults' });
    proxy.plan('GET', `/api/v1/vault/vault-id/${id}`, [
      { kind: 'answer', status: 503, headers: { 'retry-after': '0' } },
      { kind: 'answer', status: 503 },
    ]);
    expect((await vault.vaults.get(id)).data.name).toBe('Read under faults');

    proxy.plan('GET', `/api/v1/vault/vault-id/${id}`, [{ kind: 'answer', status: 429, headers: { 'retry-after': '3600' } }]);
    const refused = await vault.vaults.get(id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterMs).toBe(3_600_000);
  });

  it('never sends a POST twice without its key', async () => {
    proxy.plan('POST', /\/rotate-secret$/, [{ kind: 'answer', status: 503 }]);
    const seenBefore = proxy.seen.length;
    const res = await vault.transport.send(`${vault.baseUrls.records}/vault/vault-id/x/webhooks/webhook-id/y/rotate-secret`, {
      method: 'POST',
    });
    expect(res.status).toBe(503);
    const sent = proxy.seen.slice(seenBefore);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers['idempotency-key']).toBeUndefined();
  });
});
