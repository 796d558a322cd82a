import { AckPolicy, jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { ensureStream } from '@vault/platform/events';
import { TestNatsServer } from '@vault/platform/testing';
import { EventStreams } from '../../capabilities/events/event-streams';
import { FanoutHorizon, WEBHOOK_DURABLE } from './fanout-horizon';
import { WebhooksEnv } from './webhooks.env';

describe('FanoutHorizon (real nats-server)', () => {
  jest.setTimeout(60_000);
  let server: TestNatsServer;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let namespace = 0;

  beforeAll(async () => {
    server = await TestNatsServer.start();
    nc = await connect({ servers: server.url });
    jsm = await jetstreamManager(nc);
  });
  afterAll(async () => {
    await nc?.close();
    await server?.dispose();
  });

  /**
   * A horizon over a stream of its own holding `events` events, with the fan-out's durable
   * consumer on it; `ack(n)` acknowledges the next n events as the fan-out would.
   */
  async function setup(events: number, pollMs = 60_000) {
    const env = Object.assign(new WebhooksEnv(), { EVENTS_NAMESPACE: `fh${++namespace}`, WEBHOOK_POLL_MS: pollMs });
    const spec = new EventStreams(env).events;
    await ensureStream(jsm, spec);
    const subject = spec.subjects[0].replace('>', 'record.updated');
    for (let i = 0; i < events; i++) await jetstream(nc).publish(subject, `e${i + 1}`);
    await jsm.consumers.add(spec.name, { durable_name: WEBHOOK_DURABLE, ack_policy: AckPolicy.Explicit });
    const consumer = await jetstream(nc).consumers.get(spec.name, WEBHOOK_DURABLE);
    const ack = async (n: number) => {
      const batch = await consumer.fetch({ max_messages: n, expires: 2000 });
      for await (const m of batch) await m.ackAck();
    };
    return { horizon: new FanoutHorizon(nc, env), ack };
  }

  /** Messages this connection sent so far (each question to JetStream is one). */
  const sent = () => nc.stats().outMsgs;

  it('a batch that follows on from the floor raises it at once, without asking JetStream', async () => {
    const { horizon } = await setup(6);
    expect(await horizon.current()).toBe(0);
    const before = sent();
    horizon.stored([2, 1, 3]);
    expect(horizon.known).toBe(3);
    expect(await horizon.upTo(3)).toBe(3);
    horizon.stored([4, 5]);
    expect(await horizon.upTo(5)).toBe(5);
    expect(sent()).toBe(before);
  });

  it('a batch above a gap waits for the ack floor to reach the gap, then joins it', async () => {
    const { horizon, ack } = await setup(8);
    horizon.stored([5, 6]);
    horizon.stored([8]);
    expect(horizon.known).toBe(0);
    // events 1–4 stored and acknowledged by another instance
    await ack(4);
    expect(await horizon.upTo(6)).toBe(6);
    expect(horizon.known).toBe(6);
    // 7 stored here: 8 follows on, and the stretch stored before is reached
    expect(horizon.stored([7])).toBe(true);
    expect(horizon.known).toBe(8);
    expect(horizon.stored([9])).toBe(false);
  });

  it('asks JetStream when what was stored here is above the floor, or the last answer is older than WEBHOOK_POLL_MS', async () => {
    const { horizon, ack } = await setup(4, 200);
    await ack(2);
    const before = sent();
    // nothing stored here: the floor is JetStream's
    expect(await horizon.upTo(2)).toBe(2);
    expect(sent()).toBeGreaterThan(before);
    let asked = sent();
    expect(await horizon.upTo(2)).toBe(2);
    expect(sent()).toBe(asked);
    // stored up to 4 elsewhere (this process's dispatcher was told so) but not known here
    await ack(2);
    expect(await horizon.upTo(4)).toBe(4);
    expect(sent()).toBeGreaterThan(asked);
    asked = sent();
    await new Promise((r) => setTimeout(r, 250));
    expect(await horizon.upTo(4)).toBe(4);
    expect(sent()).toBeGreaterThan(asked);
  });

  it('never falls: an ack floor behind what this process stored leaves it where it is', async () => {
    const { horizon, ack } = await setup(5);
    horizon.stored([1, 2, 3, 4]);
    await ack(1);
    expect(await horizon.current()).toBe(4);
  });

  it('keeps the last floor while JetStream cannot be asked', async () => {
    const { horizon, ack } = await setup(3);
    await ack(3);
    expect(await horizon.current()).toBe(3);
    const other = await connect({ servers: server.url });
    await other.close();
    const closed = new FanoutHorizon(other, Object.assign(new WebhooksEnv(), { EVENTS_NAMESPACE: `fh${namespace}` }));
    closed.stored([1, 2]);
    expect(await closed.current()).toBe(2);
  });
});
