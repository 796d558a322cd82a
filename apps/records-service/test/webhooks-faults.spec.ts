import type { ServiceProcess } from '@vault/platform/testing';
import { nanos } from '@nats-io/nats-core';
import { Client } from 'pg';
import { WEBHOOK_DURABLE } from '../src/features/webhooks/fanout-horizon';
import { waitFor } from './activity-log.harness';
import { RecordsProcesses } from './records-process';
import { recordBody, type Caller } from './support';
import { Receiver } from './webhook-receiver';

const RECORD_SUBJECTS = ['vault.record.created.v1', 'vault.record.updated.v1'];
const RECORD_EVENTS = ['record.created', 'record.updated'];
/** Ack wait of the fan-out consumer when the process fanning out an event is killed. */
const ACK_WAIT_MS = 8000;

/**
 * Webhook delivery when things break: records-service runs as real OS processes (the
 * outbox relay, the fan-out consumer and the dispatcher inline) on PostgreSQL and a
 * private nats-server, delivering to local receivers that verify every request with
 * `standardwebhooks` and deduplicate by webhook-id. NATS is restarted while events are
 * produced and fanned out, and the service is killed -9 with deliveries in flight: every
 * event still reaches its receiver, in order per vault, under one webhook-id.
 */
describe('webhook delivery under faults (service processes, private NATS)', () => {
  jest.setTimeout(120_000);
  let h: RecordsProcesses;
  let service: ServiceProcess;

  beforeAll(async () => {
    h = await RecordsProcesses.create('webhook_faults', {
      WEBHOOK_DISPATCHER: 'inline',
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE_MS: '200,300,500,800,1000,1000,1000,1000,1000,1000,1000,1000',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_CONNECT_TIMEOUT_MS: '300',
      WEBHOOK_RESPONSE_TIMEOUT_MS: '1000',
      WEBHOOK_ACK_WAIT_MS: '2000',
    });
    service = await h.start();
  });
  afterAll(async () => {
    await Receiver.closeAll();
    await h?.dispose();
  });

  /** A receiver verifying each vault's requests with that vault's subscription secret. */
  const subscribeAll = async (owner: Caller, vaults: string[], receiver: Receiver, events = RECORD_EVENTS) => {
    const ids: string[] = [];
    for (const vaultId of vaults) {
      const sub = (
        await h.expect(201, service, owner, 'POST', `/vault/vault-id/${vaultId}/webhooks`, { url: receiver.url, events })
      ).body as { id: string; secret: string };
      receiver.secretsByVault.set(vaultId, [sub.secret]);
      ids.push(sub.id);
    }
    return ids;
  };
  const deliveryStates = async (webhookIds: string[]) =>
    h.sql<{ event_id: string; status: string; attempts: number }>(
      `SELECT event_id, status, attempts FROM webhook_deliveries WHERE webhook_id = ANY($1) ORDER BY stream_seq`,
      [webhookIds],
    );
  /**
   * Waits until the receiver accepted every record event of the vaults, then checks each
   * was accepted once, in the vault's order, that nothing else came and nothing is pending.
   */
  const expectAllDelivered = async (receiver: Receiver, vaults: string[], webhookIds: string[]) => {
    const expected = new Map<string, string[]>();
    for (const v of vaults) expected.set(v, await h.outboxIds(v, RECORD_SUBJECTS));
    const all = [...expected.values()].flat();
    await waitFor(
      async () =>
        all.every((id) => receiver.accepted.has(id)) && (await deliveryStates(webhookIds)).every((d) => d.status === 'delivered'),
      60_000,
      `${all.length} events accepted by the receiver`,
    );
    for (const v of vaults) expect(receiver.acceptedOf(v)).toEqual(expected.get(v));
    expect(receiver.accepted.size).toBe(all.length);
    // Any second request of an event carried the same webhook-id (and body).
    expect(receiver.requests.filter((r) => !all.includes(r.id))).toEqual([]);
    for (const r of receiver.requests) expect(r.body).toBe(receiver.accepted.get(r.id)?.body);
    const rows = await deliveryStates(webhookIds);
    expect(rows.map((d) => d.event_id).sort()).toEqual([...all].sort());
    expect(rows.filter((d) => d.status !== 'delivered')).toEqual([]);
    expect(receiver.rejected).toEqual([]);
  };

  it('sends a subscription only the events that happened after its creation, even when older ones reach the fan-out later', async () => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    const owner = await h.caller();
    // NATS is down: whatever is committed now reaches the fan-out only once it is back.
    await h.nats.stop('SIGTERM');
    const vaultId = await h.createVault(service, owner, 'Before');
    await h.createRecord(service, owner, vaultId, 'Older');
    const [webhookId] = await subscribeAll(owner, [vaultId], receiver, ['*']);
    const newer = await h.createRecord(service, owner, vaultId, 'Newer');
    const outbox = await h.sql<{ id: string; subject: string; payload: { record?: { id: string } }; occurred_at: Date }>(
      `SELECT id, subject, payload, occurred_at FROM outbox_events WHERE vault_id = $1 ORDER BY occurred_at, id`,
      [vaultId],
    );
    const [{ created_at: subscribedAt }] = await h.sql<{ created_at: Date }>(`SELECT created_at FROM webhooks WHERE id = $1`, [
      webhookId,
    ]);
    const after = outbox.filter((e) => e.occurred_at >= subscribedAt);
    expect(after.map((e) => e.payload.record?.id)).toEqual([newer]);
    expect(outbox.length).toBeGreaterThan(2); // vault.created and the older record.created, at least
    await h.nats.restart();

    // The relay publishes all of them; the fan-out takes them in stream order.
    await waitFor(
      async () => (await deliveryStates([webhookId])).some((d) => d.status === 'delivered'),
      30_000,
      'the newer event',
    );
    await waitFor(
      async () =>
        (await h.sql(`SELECT 1 FROM outbox_events WHERE vault_id = $1 AND published_at IS NULL`, [vaultId])).length === 0,
      30_000,
      'the outbox relayed',
    );
    expect((await deliveryStates([webhookId])).map((d) => d.event_id)).toEqual([after[0].id]);
    expect([...receiver.accepted.keys()]).toEqual([after[0].id]);
    expect(receiver.accepted.get(after[0].id)?.event).toMatchObject({ type: 'record.created', data: { id: newer } });
    expect(receiver.rejected).toEqual([]);
    await receiver.close();
  });

  it('delivers every event once per webhook-id, in order per vault, when NATS is killed and restarted mid-stream', async () => {
    const receiver = new Receiver('127.0.0.1');
    await receiver.listen();
    const owner = await h.caller();
    const vaults = [];
    for (const name of ['North', 'South', 'East']) vaults.push(await h.createVault(service, owner, name));
    const webhookIds = await subscribeAll(owner, vaults, receiver);

    // One writer per vault: records created, and every third one renamed, one after the
    // other, before NATS dies, while it is down (committed to the outbox only) and after.
    const committed = { before: 0, down: 0, after: 0 };
    let phase: keyof typeof committed = 'before';
    const produce = async (vaultId: string) => {
      for (let i = 0; phase !== 'after' || committed.after < 12; i++) {
        // Counted in the phase the change started in.
        const started = phase;
        const id = await h.createRecord(service, owner, vaultId, `R${i}`);
        if (i % 3 === 2)
          await h.expect(
            200,
            service,
            owner,
            'PUT',
            `/vault/vault-id/${vaultId}/records/record-id/${id}`,
            recordBody({ name: `R${i}+` }),
          );
        committed[started]++;
      }
    };
    const producing = Promise.all(vaults.map((v) => produce(v)));

    await waitFor(async () => receiver.accepted.size >= 6, 30_000, 'the first deliveries');
    await h.nats.stop('SIGKILL');
    phase = 'down';
    await waitFor(async () => committed.down >= 6, 30_000, 'changes while NATS is down');
    await h.nats.restart();
    phase = 'after';
    await producing;

    await expectAllDelivered(receiver, vaults, webhookIds);
    expect(receiver.accepted.size).toBeGreaterThanOrEqual(6 + 6 + 12);
    await receiver.close();
  });

  it('delivers every event once per webhook-id, in order per vault, after the service is killed -9 with deliveries in flight and an event being fanned out', async () => {
    const receiver = new Receiver('127.0.0.1');
    // The receiver takes each request into its dedupe, then holds its answer: the killed
    // sender never learns the outcome and must send the same webhook-id again.
    const held: Receiver['requests'] = [];
    const release: (() => void)[] = [];
    let holding = true;
    receiver.beforeAnswer = (r) =>
      holding
        ? new Promise<void>((resolve) => {
            held.push(r);
            release.push(resolve);
          })
        : Promise.resolve();
    await receiver.listen();
    const [owner, other] = [await h.caller(), await h.caller()];
    const vaults = [];
    for (const name of ['Left', 'Middle', 'Right']) vaults.push(await h.createVault(service, owner, name));
    const fanned = await h.createVault(service, other, 'Fanned');
    const webhookIds = [...(await subscribeAll(owner, vaults, receiver)), ...(await subscribeAll(other, [fanned], receiver))];
    for (let i = 0; i < 4; i++) await Promise.all(vaults.map((v) => h.createRecord(service, owner, v, `Before ${i}`)));

    // One delivery per subscription and vault is in flight at a time: three at once.
    await waitFor(async () => held.length >= 3, 30_000, 'three deliveries in flight');
    await waitFor(async () => (await deliveryStates(webhookIds)).length === 12, 30_000, 'the events fanned out');
    // The event being fanned out when the process dies comes back to the fan-out only
    // after the ack wait, after the restarted process took the next event of its vault.
    await h.updateConsumer('VAULT_EVENTS', WEBHOOK_DURABLE, { ack_wait: nanos(ACK_WAIT_MS) });
    const locker = new Client({ connectionString: h.db.url });
    await locker.connect();
    try {
      // The fan-out's insert waits for the table: the process dies before it commits.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE webhook_deliveries IN EXCLUSIVE MODE');
      await h.createRecord(service, other, fanned, 'First');
      // pg_stat_activity is the whole server's: only this suite's database counts (other suites may run beside it)
      const inserting = `SELECT 1 FROM pg_stat_activity
                          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%INSERT INTO webhook_deliveries%'`;
      await waitFor(async () => (await h.sql(inserting)).length > 0, 30_000, 'the fan-out storing the event');
      await h.stop(service, 'SIGKILL');
      // PostgreSQL would still run the dead process's waiting statements: end them as the crash would.
      await locker.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> pg_backend_pid()`,
      );
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
    }
    const inFlight = held.map((r) => r.id);
    holding = false;
    for (const answer of release) answer();
    // The first event of each vault, leased by the dead process and still pending.
    const firsts: string[] = [];
    for (const v of vaults) firsts.push((await h.outboxIds(v, RECORD_SUBJECTS))[0]);
    expect([...inFlight].sort()).toEqual(firsts.sort());
    const leased = (await deliveryStates(webhookIds)).filter((d) => inFlight.includes(d.event_id));
    expect(leased.map((d) => d.status)).toEqual(inFlight.map(() => 'pending'));

    service = await h.start({ WEBHOOK_ACK_WAIT_MS: String(ACK_WAIT_MS) });
    await h.createRecord(service, other, fanned, 'Second');
    for (let i = 0; i < 2; i++) await Promise.all(vaults.map((v) => h.createRecord(service, owner, v, `After ${i}`)));
    await expectAllDelivered(receiver, [...vaults, fanned], webhookIds);
    // The held ones were sent again (same webhook-id) once their lease ran out.
    for (const id of inFlight) expect(receiver.requests.filter((r) => r.id === id).length).toBeGreaterThanOrEqual(2);
    // The next event of the fanned vault waited for the one the dead process never stored.
    expect(receiver.acceptedOf(fanned).map((id) => receiver.accepted.get(id)?.event.data.name)).toEqual(['First', 'Second']);
    expect(receiver.accepted.size).toBe(3 * 6 + 2);
    await receiver.close();
  });
});
