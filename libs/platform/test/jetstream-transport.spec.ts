import { randomUUID } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { Pool } from 'pg';
import { connectJetStream, ensureStream, EventNamespace, JetStreamServer, JetStreamServerOptions } from '../src/events';
import { createTestDatabase, TestDatabase, TestNatsServer } from '../src/testing';
import {
  OrderPlaced,
  OrdersConsumer,
  OrdersLedger,
  OrderStore,
  ordersStreamSpec,
  POISON,
  readDeadLetters,
} from './fixtures/orders-consumer';

/**
 * The JetStream transport against a private nats-server and a PostgreSQL database:
 * ack after commit, nak and redelivery, dead letters, batches, faults of NATS and
 * of the consumer mid-stream (each message stored exactly once), drain on close.
 */
describe('JetStreamServer (Nest transport, real NATS and PostgreSQL)', () => {
  jest.setTimeout(120_000);
  let nats: TestNatsServer;
  let db: TestDatabase;
  let pool: Pool;
  let admin: NatsConnection;
  let jsm: JetStreamManager;
  let namespace: EventNamespace;
  const stores: OrderStore[] = [];
  const connections: NatsConnection[] = [];
  const apps: { app: INestApplication; nc: NatsConnection; server: JetStreamServer; store: OrderStore }[] = [];

  /**
   * A consumer "process": a Nest app with its own NATS connection and the transport connected;
   * it waits for its consumers to start unless `consumers` settings are given (one may never start).
   */
  const startConsumer = async (
    settings: Partial<OrderStore> = {},
    consumers?: JetStreamServerOptions['consumers'],
    awaitReady = !consumers,
    controllers: (typeof OrdersConsumer | typeof OrdersLedger)[] = [OrdersConsumer],
  ) => {
    const store = Object.assign(new OrderStore(pool), settings);
    stores.push(store);
    const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    const ref = await Test.createTestingModule({
      controllers,
      providers: [{ provide: OrderStore, useValue: store }],
    }).compile();
    const app = ref.createNestApplication({ logger: false });
    const server = await connectJetStream(app, {
      connection: nc,
      namespace,
      streams: [ordersStream()],
      consumers,
      restartDelayMs: 200,
    });
    await app.init();
    if (awaitReady) await server.ready();
    const entry = { app, nc, server, store };
    apps.push(entry);
    return entry;
  };
  const stopConsumer = async (entry: (typeof apps)[number]) => {
    apps.splice(apps.indexOf(entry), 1);
    await entry.app.close();
    // The connection stays open (as in a hybrid app whose HTTP side goes on): closed after the test.
    connections.push(entry.nc);
  };

  /** Publishes with the order id as message id; retries while NATS is down (JetStream drops the copies). */
  const publish = async (subject: string, body: object, id: string) => {
    const js = jetstream(admin);
    for (;;) {
      try {
        await js.publish(namespace.subject(subject), JSON.stringify(body), { msgID: id, timeout: 1000 });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const ordersStream = () => ordersStreamSpec(namespace);
  const order = (quantity = 1) => ({ orderId: randomUUID(), quantity });
  const rows = async (durable: string) =>
    (await pool.query(`SELECT message_id, count(*)::int AS n FROM handled WHERE durable = $1 GROUP BY message_id`, [durable]))
      .rows as { message_id: string; n: number }[];
  const until = async (cond: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000) => {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end) {
      if (await cond()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out: ${what}`);
  };
  const consumerInfo = (durable: string) => jsm.consumers.info(namespace.stream('ORDERS'), durable);
  const deadLetters = () => readDeadLetters(jsm, namespace.stream('ORDERS_DLQ'));
  /** Every id stored exactly once by `durable`, and nothing else. */
  const expectExactlyOnce = async (durable: string, ids: string[]) => {
    await until(async () => (await rows(durable)).length >= ids.length, `${ids.length} ${durable} rows`, 60_000);
    const stored = await rows(durable);
    expect(stored.filter((r) => r.n !== 1)).toEqual([]);
    expect(stored.map((r) => r.message_id).sort()).toEqual([...ids].sort());
  };

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    db = await createTestDatabase('jetstream_transport');
    pool = new Pool({ connectionString: db.url, max: 8 });
    await pool.query(
      `CREATE TABLE handled (message_id text NOT NULL, durable text NOT NULL, order_id text NOT NULL,
        PRIMARY KEY (message_id, durable))`,
    );
    admin = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    jsm = await jetstreamManager(admin);
  });

  beforeEach(async () => {
    // A fresh namespace per test: its own stream, consumers and dead letters.
    namespace = new EventNamespace(`t${randomUUID().slice(0, 8)}`);
    await pool.query('TRUNCATE handled');
    // Publishers may start before any consumer: the stream exists first (the transport also ensures it).
    await ensureStream(jsm, ordersStream());
  });

  afterEach(async () => {
    for (const a of [...apps]) await stopConsumer(a);
    stores.splice(0);
    for (const nc of connections.splice(0)) await nc.close();
    if (!nats.running) await nats.restart();
  });

  afterAll(async () => {
    await admin?.close();
    if (pool) {
      // pool.end() resolves before its connections have closed: the forced drop below would
      // terminate one still closing, and the pool would raise that as an unhandled error.
      let open = pool.totalCount;
      const closed = new Promise<void>((resolve) => {
        if (open === 0) resolve();
        pool.on('remove', () => --open === 0 && resolve());
      });
      await pool.end();
      await closed;
    }
    await db?.drop();
    await nats?.dispose();
  });

  it('acknowledges a message only after the handler committed its transaction', async () => {
    let open!: () => void;
    const { store } = await startConsumer({ gate: new Promise<void>((r) => (open = r)) });
    const o = order();
    await publish('orders.placed', o, o.orderId);
    await until(() => store.entered === 1, 'the handler to be inside its transaction');
    expect((await consumerInfo('orders')).num_ack_pending).toBe(1);
    expect(await rows('orders')).toEqual([]);
    open();
    await until(async () => (await consumerInfo('orders')).num_ack_pending === 0, 'the ack');
    expect(await rows('orders')).toEqual([{ message_id: o.orderId, n: 1 }]);
    expect((await consumerInfo('orders')).num_pending).toBe(0);
    expect(store.instances).toBe(1);
  });

  it('delivers a failed message again after a backoff, and stores it once', async () => {
    const { store, server } = await startConsumer({ failFirst: 2 });
    const o = order();
    await publish('orders.placed', o, o.orderId);
    await expectExactlyOnce('orders', [o.orderId]);
    expect(store.calls.get(o.orderId)).toBe(3);
    expect(server.stats('orders')).toEqual({ processed: 1, deadLettered: 0 });
    expect(await deadLetters()).toEqual([]);
  });

  it('dead-letters a message still failing after MaxDeliver deliveries, and goes on', async () => {
    const { store, server } = await startConsumer();
    const poison = order(POISON);
    const good = [order(), order()];
    await publish('orders.placed', poison, poison.orderId);
    for (const o of good) await publish('orders.placed', o, o.orderId);
    await expectExactlyOnce(
      'orders',
      good.map((o) => o.orderId),
    );
    await until(() => server.stats('orders').deadLettered === 1, 'the dead letter');
    expect(store.calls.get(poison.orderId)).toBe(3);
    const [dead, ...more] = await deadLetters();
    expect(more).toEqual([]);
    expect(dead).toMatchObject({
      subject: namespace.subject('deadletter.orders.orders'),
      deliveries: '3',
      body: JSON.stringify(poison),
    });
    expect(dead.reason).toMatch(/failed 3 deliveries/);
  });

  it('dead-letters a payload that does not match its contract class at once, without calling the handler', async () => {
    const { store, server } = await startConsumer();
    const bad = { orderId: 'not-a-uuid', quantity: 0 };
    const id = randomUUID();
    await publish('orders.placed', bad, id);
    await until(() => server.stats('orders').deadLettered === 1, 'the dead letter');
    const [dead] = await deadLetters();
    expect(dead.deliveries).toBe('1');
    expect(dead.reason).toMatch(/invalid.*orderId.*quantity/);
    expect(store.calls.size).toBe(0);
    expect(await rows('orders')).toEqual([]);
  });

  it('parses and validates each message once for the consumers of a process, which share the payload', async () => {
    const { store, server } = await startConsumer({}, undefined, true, [OrdersConsumer, OrdersLedger]);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const o = order();
      ids.push(o.orderId);
      await publish('orders.placed', o, o.orderId);
    }
    const bad = { orderId: 'not-a-uuid', quantity: 0 };
    await publish('orders.placed', bad, randomUUID());
    await expectExactlyOnce('orders', ids);
    await expectExactlyOnce('ledger', ids);
    // both consumers dead-letter the invalid one, from one validation
    await until(() => server.stats('orders').deadLettered + server.stats('ledger').deadLettered === 2, 'both dead letters');
    expect(server.decoded.counts).toEqual({ parsed: 21, validated: 21, reused: 21 });
    const orders = store.payloads.get('orders');
    const ledger = store.payloads.get('ledger');
    expect(ledger?.size).toBe(20);
    for (const [id, payload] of ledger ?? []) {
      expect(payload).toBeInstanceOf(OrderPlaced);
      expect(orders?.get(id)).toBe(payload);
    }
  });

  it('hands a batch handler many events per call, each stored once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const o = order();
      ids.push(o.orderId);
      await publish('orders.shipped', o, o.orderId);
    }
    const { store } = await startConsumer();
    await expectExactlyOnce('shipments', ids);
    expect(Math.max(...store.batches)).toBeGreaterThan(1);
    expect(Math.max(...store.batches)).toBeLessThanOrEqual(50);
    expect(store.batches.length).toBeLessThan(200);
  });

  it('runs each consumer on its own: one left off by settings, one whose stream is missing holds back no other', async () => {
    const shipped = order();
    await publish('orders.shipped', shipped, shipped.orderId);
    const o = order();
    const off = await startConsumer({}, { shipments: false });
    expect(off.server.durables()).toEqual(['orders']);
    await publish('orders.placed', o, o.orderId);
    await expectExactlyOnce('orders', [o.orderId]);
    await expect(consumerInfo('shipments')).rejects.toThrow(/not found/);
    await stopConsumer(off);
    // Settings override the decorator: this one reads a stream nobody created.
    const missing = await startConsumer({}, { shipments: { stream: 'MISSING' } });
    const p = order();
    await publish('orders.placed', p, p.orderId);
    await expectExactlyOnce('orders', [o.orderId, p.orderId]);
    expect(await rows('shipments')).toEqual([]);
    expect(missing.server.stats('shipments')).toEqual({ processed: 0, deadLettered: 0 });
  });

  it.each([['SIGTERM' as const], ['SIGKILL' as const]])(
    'stores every message once when NATS (%s) and the consumer restart mid-stream',
    async (signal) => {
      const placed: string[] = [];
      const shipped: string[] = [];
      // Acks lost with NATS come back after AckWait: a short one here (a redelivery in
      // flight is still stored once), instead of the decorators' 30 s.
      const shortAckWait = { orders: { ackWaitMs: 3000 }, shipments: { ackWaitMs: 3000 } };
      const first = await startConsumer({ slowMs: 5 }, shortAckWait, true);
      const producing = (async () => {
        for (let i = 0; i < 300; i++) {
          const o = order();
          const subject = i % 2 ? 'orders.shipped' : 'orders.placed';
          (i % 2 ? shipped : placed).push(o.orderId);
          await publish(subject, o, o.orderId);
          await new Promise((r) => setTimeout(r, 3));
        }
      })();
      await until(async () => (await rows('orders')).length >= 20, 'the first orders');
      await nats.stop(signal);
      await new Promise((r) => setTimeout(r, 700));
      await nats.restart();
      await until(async () => (await rows('orders')).length >= 60, 'orders after the NATS restart');
      // The consumer stops mid-stream; a replica and then a new instance take over.
      await stopConsumer(first);
      await startConsumer({}, shortAckWait, true);
      await startConsumer({}, shortAckWait, true);
      await producing;
      await expectExactlyOnce('orders', placed);
      await expectExactlyOnce('shipments', shipped);
    },
  );

  it('drains on close: the batch in progress commits and is acknowledged, buffered messages are handed back', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const o = order();
      ids.push(o.orderId);
      await publish('orders.placed', o, o.orderId);
    }
    const slow = await startConsumer({ slowMs: 300 });
    await until(() => slow.store.entered === 2, 'the second message to be in progress');
    await stopConsumer(slow);
    // The message in progress was committed before close() returned, and acknowledged.
    const stored = await rows('orders');
    expect(stored.length).toBe(2);
    // Buffered messages were nak'ed: a new consumer gets them at once, not after the 30 s AckWait.
    const started = Date.now();
    await startConsumer();
    await expectExactlyOnce('orders', ids);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
