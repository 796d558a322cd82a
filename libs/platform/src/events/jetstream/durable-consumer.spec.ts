import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import { metricsRegistry } from '../../observability/metrics';
import { TestNatsServer } from '../../testing/nats-server';
import {
  DEAD_LETTER_HEADERS,
  type DurableBatchHandler,
  DurableConsumerRunner,
  InvalidMessageError,
  type RelayLogger,
} from './durable-consumer';
import { ensureStream } from './streams';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

describe('DurableConsumerRunner (real nats-server)', () => {
  jest.setTimeout(60_000);
  let server: TestNatsServer;
  let nc: NatsConnection;
  let js: JetStreamClient;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    server = await TestNatsServer.start();
    nc = await connect({ servers: server.url });
    js = jetstream(nc);
    jsm = await jetstreamManager(nc);
    await ensureStream(jsm, { name: 'EV', subjects: ['ev.>'], replicas: 1, duplicateWindowMs: 60_000 });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.dispose();
  });

  /** A runner of stream EV for the durable `durable` on `filterSubject`, with `handler`. */
  const runnerOf = <T>(
    durable: string,
    filterSubject: string,
    handler: DurableBatchHandler<T>,
    opts: { batchSize?: number; logger?: RelayLogger } = {},
  ) =>
    new DurableConsumerRunner<T>({
      js,
      jsm,
      consumer: { stream: 'EV', durable, filterSubject, ackWaitMs: 2000, maxDeliver: 3, maxAckPending: 100 },
      deadLetter: {
        stream: { name: 'EV_DLQ', subjects: ['dead.>'], replicas: 1, duplicateWindowMs: 60_000 },
        subject: `dead.${durable}`,
      },
      batchSize: opts.batchSize ?? 10,
      retryDelayMs: 50,
      logger: opts.logger ?? quiet,
      handler,
    });

  const runner = (stored: string[], opts: { failOn?: string; durable: string; gate?: Promise<void>; filterSubject?: string }) =>
    runnerOf<string>(opts.durable, opts.filterSubject ?? 'ev.>', {
      decode: (m) => {
        const body = m.string();
        if (body === 'garbage') throw new InvalidMessageError('not an event');
        return body;
      },
      commit: async (items) => {
        await opts.gate;
        if (opts.failOn && items.includes(opts.failOn)) throw new Error('constraint violated');
        stored.push(...items);
      },
    });

  const deadLetters = async (subject: string) => {
    const out: { body: string; reason: string; deliveries: string }[] = [];
    const info = await jsm.streams.info('EV_DLQ');
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && seq > 0; seq++) {
      const m = await jsm.streams.getMessage('EV_DLQ', { seq }).catch(() => null);
      if (m && m.subject === subject) {
        out.push({
          body: m.string(),
          reason: m.header.get(DEAD_LETTER_HEADERS.reason),
          deliveries: m.header.get(DEAD_LETTER_HEADERS.deliveries),
        });
      }
    }
    return out;
  };

  /** A sample of the registry (as GET /metrics renders it), undefined when absent. */
  const series = async (name: string, labels: Record<string, string>) => {
    const metric = await metricsRegistry.getSingleMetric(name)?.get();
    return metric?.values.find((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value;
  };

  const until = async (cond: () => boolean | Promise<boolean>, what: string) => {
    const end = Date.now() + 20_000;
    while (Date.now() < end) {
      if (await cond()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out: ${what}`);
  };

  it('dead-letters a message still failing at MaxDeliver, without holding back its batch', async () => {
    const stored: string[] = [];
    const r = runner(stored, { failOn: 'poison', durable: 'maxdeliver' });
    await r.start();
    for (const body of ['a', 'poison', 'b', 'c']) await js.publish('ev.x', body, { msgID: `m1-${body}` });
    await until(() => r.deadLettered === 1 && stored.length === 3, 'poison dead-lettered');
    await r.stop();
    expect(stored.sort()).toEqual(['a', 'b', 'c']);
    // only the poison message came back: its 2nd and 3rd deliveries
    expect(await series('jetstream_consumer_redelivered_total', { consumer: 'maxdeliver' })).toBe(2);
    expect(await deadLetters('dead.maxdeliver')).toEqual([
      { body: 'poison', reason: expect.stringContaining('failed 3 deliveries'), deliveries: '3' },
    ]);
  });

  it('reports its pending counts from the consumer info at each scrape, while it runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stored: string[] = [];
    // only this test's subject: the stream holds the other tests' messages too
    const r = runner(stored, { durable: 'pending', gate, filterSubject: 'ev.p' });
    await r.start();
    for (const body of ['p1', 'p2', 'p3']) await js.publish('ev.p', body, { msgID: `m3-${body}` });
    const pending = (state: string) => series('jetstream_consumer_pending_messages', { consumer: 'pending', state });
    // delivered to the runner, its batch held in the handler: none left undelivered, three unacknowledged
    try {
      await until(async () => (await pending('unacknowledged')) === 3, 'three messages awaiting their ack');
      expect(await pending('undelivered')).toBe(0);
    } finally {
      release();
    }
    await until(() => stored.length === 3, 'the batch stored');
    await until(async () => (await pending('unacknowledged')) === 0, 'the batch acknowledged');
    await r.stop();
    expect(await pending('undelivered')).toBeUndefined();
    expect(await series('jetstream_consumer_redelivered_total', { consumer: 'pending' })).toBeUndefined();
  });

  it('runs what a commit returns once the server has confirmed the acks: the ack floor includes the batch', async () => {
    const durable = 'confirmed';
    const floors: { batchEnd: number; floor: Promise<number> }[] = [];
    const r = runnerOf<number>(
      durable,
      'ev.c',
      {
        decode: (m) => m.seq,
        commit: async (seqs) => () => {
          // read at once, as the webhook dispatcher reads its horizon when woken
          const floor = jsm.consumers.info('EV', durable).then((i) => i.ack_floor.stream_seq);
          floors.push({ batchEnd: Math.max(...seqs), floor });
        },
      },
      { batchSize: 3 },
    );
    await r.start();
    let last = 0;
    for (let i = 0; i < 12; i++) last = (await js.publish('ev.c', `c${i}`, { msgID: `m4-${i}` })).seq;
    await until(() => floors.length > 0 && Math.max(...floors.map((f) => f.batchEnd)) === last, 'every batch stored');
    await r.stop();
    const seen = await Promise.all(floors.map(async (f) => ({ batchEnd: f.batchEnd, floor: await f.floor })));
    expect(seen.filter((f) => f.floor < f.batchEnd)).toEqual([]);
    expect(r.processed).toBe(12);
  });

  it('logs a failing after-ack function and goes on consuming', async () => {
    const durable = 'afterthrow';
    const errors: string[] = [];
    const r = runnerOf<string>(
      durable,
      'ev.t',
      {
        decode: (m) => m.string(),
        commit: async () => () => {
          throw new Error('boom');
        },
      },
      { batchSize: 1, logger: { ...quiet, error: (m) => errors.push(m) } },
    );
    await r.start();
    for (const body of ['t1', 't2']) await js.publish('ev.t', body, { msgID: `m5-${body}` });
    await until(() => errors.length === 2, 'both after-ack failures logged');
    await r.stop();
    expect(r.processed).toBe(2);
    expect(errors).toEqual([
      `consumer ${durable}: after the acks: Error: boom`,
      `consumer ${durable}: after the acks: Error: boom`,
    ]);
  });

  it('dead-letters an undecodable message at once and survives a broker restart', async () => {
    const stored: string[] = [];
    const r = runner(stored, { durable: 'restart' });
    await r.start();
    await js.publish('ev.y', 'garbage', { msgID: 'm2-garbage' });
    await js.publish('ev.y', 'd', { msgID: 'm2-d' });
    await until(() => stored.includes('d') && r.deadLettered === 1, 'garbage dead-lettered');
    expect((await deadLetters('dead.restart'))[0]).toMatchObject({ body: 'garbage', deliveries: '1' });
    // Acks travel after the commit: stop the broker only once it has recorded them.
    await until(async () => (await jsm.consumers.info('EV', 'restart')).num_ack_pending === 0, 'acks recorded');
    await server.stop('SIGTERM');
    await server.restart();
    await until(async () => {
      try {
        await js.publish('ev.y', 'e', { msgID: 'm2-e', timeout: 1000 });
        return true;
      } catch {
        return false;
      }
    }, 'publish after restart');
    await until(() => stored.includes('e'), 'delivery after restart');
    await r.stop();
    // Messages stored before the restart were acknowledged: not delivered again.
    expect(stored.filter((s) => s === 'd')).toHaveLength(1);
  });
});
