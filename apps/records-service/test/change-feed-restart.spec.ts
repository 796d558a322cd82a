import type { ServiceProcess } from '@vault/platform/testing';
import { waitFor } from './activity-log.harness';
import { portOf, RecordsProcesses } from './records-process';
import { SseClient } from './sse-client';
import type { Caller } from './support';

/**
 * The change feed's Server-Sent Events across a real restart: records-service runs as two
 * OS processes on one database and a private NATS (each writes the feed from the shared
 * durable consumer). A client reads the stream from the first, which is stopped (SIGTERM,
 * or killed -9); changes are made through the second meanwhile; the client reconnects
 * with Last-Event-ID to the restarted first process and gets exactly the events after
 * the last one it saw, then the live ones.
 */
describe('change feed stream resumed across a service restart (processes)', () => {
  jest.setTimeout(120_000);
  let h: RecordsProcesses;
  let first: ServiceProcess;
  let second: ServiceProcess;
  const clients: SseClient[] = [];

  beforeAll(async () => {
    h = await RecordsProcesses.create('feed_restart', {
      CHANGE_FEED_WRITER: 'inline',
      CHANGE_FEED_POLL_MS: '100',
      CHANGE_FEED_HEARTBEAT_MS: '500',
    });
    first = await h.start();
    second = await h.start();
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await h?.dispose();
  });

  const stream = async (p: ServiceProcess, owner: Caller, vaultId: string, lastEventId?: string) => {
    const c = await SseClient.open(portOf(p), `/vault/vault-id/${vaultId}/events`, {
      authorization: `Bearer ${owner.token}`,
      accept: 'text/event-stream',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    });
    clients.push(c);
    expect(c.status).toBe(200);
    return c;
  };
  /** Event ids of the vault's feed, in feed order. */
  const feedIds = async (vaultId: string) =>
    (await h.sql<{ event_id: string }>(`SELECT event_id FROM vault_feed WHERE vault_id = $1 ORDER BY seq`, [vaultId])).map(
      (r) => r.event_id,
    );
  const feedHolds = (vaultId: string, n: number) =>
    waitFor(async () => (await feedIds(vaultId)).length >= n, 30_000, `${n} feed events`);

  it.each([['SIGTERM' as const], ['SIGKILL' as const]])(
    'resumes with Last-Event-ID exactly after the last event seen when the service was stopped with %s',
    async (signal) => {
      const owner = await h.caller();
      const vaultId = await h.createVault(first, owner, 'Synced');
      for (const name of ['One', 'Two']) await h.createRecord(first, owner, vaultId, name);
      await feedHolds(vaultId, 3);
      const before = await stream(first, owner, vaultId);
      await before.until((c) => c.events.length === 3, 'the first events');

      await h.stop(first, signal);
      if (signal === 'SIGTERM') expect(first.child.exitCode).toBe(0);
      await before.until((c) => c.ended, 'the stream to end with its process');

      // The client is away while changes are made through the other instance.
      for (const name of ['Three', 'Four']) await h.createRecord(second, owner, vaultId, name);
      await feedHolds(vaultId, 5);

      first = await h.start();
      const after = await stream(first, owner, vaultId, before.events[2].id);
      await after.until((c) => c.events.length === 2, 'the missed events');
      await h.createRecord(first, owner, vaultId, 'Five');
      await after.until((c) => c.events.length === 3, 'the next live event');
      // Two heartbeats after the last event: the stream polled again and sent nothing more.
      const heartbeats = after.comments.length;
      await after.until((c) => c.comments.length > heartbeats + 1, 'two heartbeats');
      expect(after.events).toHaveLength(3);

      const seen = [...before.events, ...after.events].map((e) => e.data.id);
      expect(seen).toEqual(await feedIds(vaultId));
      expect(new Set(seen).size).toBe(6);
      expect(after.events.map((e) => e.data.data.record?.name)).toEqual(['Three', 'Four', 'Five']);
      after.close();
    },
  );
});
