import { randomUUID } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { Kvm } from '@nats-io/kv';
import { REVOCATION_BUCKET } from '@vault/contracts';
import { RevocationService } from '../src/auth/revocation.service';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const exp = () => Math.floor(Date.now() / 1000) + 600;

async function until(check: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe('RevocationService on real NATS', () => {
  const connections: NatsConnection[] = [];
  const services: RevocationService[] = [];

  async function start(): Promise<RevocationService> {
    const nc = await connect({ servers: NATS_URL });
    connections.push(nc);
    const service = new RevocationService(nc);
    await service.onModuleInit();
    services.push(service);
    return service;
  }

  afterAll(async () => {
    for (const s of services) await s.onApplicationShutdown();
    for (const nc of connections) await nc.close();
  });

  it('shares a revocation with every instance within a second', async () => {
    const [a, b] = [await start(), await start()];
    expect(a.isLive()).toBe(true);
    const jti = randomUUID();
    expect(b.isRevoked(jti)).toBe(false);
    await a.revoke(jti, exp());
    expect(a.isRevoked(jti)).toBe(true);
    expect(await until(() => b.isRevoked(jti), 1000)).toBe(true);
  });

  it('revokes every token of an identity (a deleted account) on every instance, and only in its tenant', async () => {
    const [a, b] = [await start(), await start()];
    const openId = `vault|${randomUUID()}`;
    const identity = { tenantId: 'tenant-a', openId };
    expect(b.isRevoked(randomUUID(), identity)).toBe(false);
    await a.revokeIdentity('tenant-a', openId);
    // any token id of the identity, also one issued after the revocation
    expect(a.isRevoked(randomUUID(), identity)).toBe(true);
    expect(await until(() => b.isRevoked(randomUUID(), identity), 1000)).toBe(true);
    expect(b.isRevoked(randomUUID(), { tenantId: 'tenant-b', openId })).toBe(false);
    expect(b.isRevoked(randomUUID(), { tenantId: 'tenant-a', openId: `vault|${randomUUID()}` })).toBe(false);
    // without the identity only token ids count; a late instance replays the entry
    expect(b.isRevoked(randomUUID())).toBe(false);
    expect((await start()).isRevoked(randomUUID(), identity)).toBe(true);

    // a deletion that did not commit withdraws the entry: the identity's tokens work again everywhere
    await a.withdrawIdentity('tenant-a', openId);
    expect(a.isRevoked(randomUUID(), identity)).toBe(false);
    expect(await until(() => !b.isRevoked(randomUUID(), identity), 1000)).toBe(true);
  });

  it('replays earlier revocations before a new instance starts serving', async () => {
    const a = await start();
    const jti = randomUUID();
    await a.revoke(jti, exp());
    const late = await start();
    expect(late.isLive()).toBe(true);
    expect(late.isRevoked(jti)).toBe(true);
  });

  it('survives an unreadable entry and treats its key as revoked', async () => {
    const nc = await connect({ servers: NATS_URL });
    connections.push(nc);
    const kv = await new Kvm(nc).open(REVOCATION_BUCKET);
    const watcher = await start();
    const garbled = randomUUID();
    await kv.put(garbled, 'not json');
    expect(await until(() => watcher.isRevoked(garbled))).toBe(true);
    const next = randomUUID();
    await kv.put(next, JSON.stringify({ jti: next, exp: exp(), revokedAt: new Date().toISOString() }));
    expect(await until(() => watcher.isRevoked(next))).toBe(true);
    expect(watcher.isLive()).toBe(true);
    // Leave the shared bucket as it was: other runs should not meet this entry.
    await kv.purge(garbled);
    expect(await until(() => !watcher.isRevoked(garbled))).toBe(true);
  });

  it('reports not live while a broken watch restarts, then catches up', async () => {
    const [writer, reader] = [await start(), await start()];
    (reader as unknown as { watcher: { stop(): void } }).watcher.stop();
    expect(await until(() => !reader.isLive(), 1000)).toBe(true);
    const during = randomUUID();
    await writer.revoke(during, exp());
    expect(await until(() => reader.isLive(), 5000)).toBe(true);
    expect(await until(() => reader.isRevoked(during), 1000)).toBe(true);
  });
});
