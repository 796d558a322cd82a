import { randomUUID } from 'node:crypto';
import { ArgumentsHost, Catch, Controller, INestApplication, UseFilters } from '@nestjs/common';
import { BaseRpcExceptionFilter, Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { throwError } from 'rxjs';
import { TestNatsServer } from '../../testing/nats-server';
import { DEAD_LETTER_HEADERS } from './durable-consumer';
import { JetStreamContext, jetStreamConsumer } from './jetstream-consumer';
import { connectJetStream } from './connect-jetstream';
import { JetStreamServer } from './jetstream.server';
import { EventNamespace } from './namespace';

/** An application error class that keeps the default `name` ("Error"). */
class StockUnavailableError extends Error {}

/** An error class that names itself, as TypeORM's and pg's do. */
class LedgerLockedError extends Error {
  override name = 'LedgerLockedError';
}

/** A filter of the handler's own: it still decides for the errors it catches. */
@Catch(LedgerLockedError)
class LedgerFilter extends BaseRpcExceptionFilter {
  override catch(exception: LedgerLockedError, _host: ArgumentsHost) {
    return throwError(() => new Error(`ledger filter: ${exception.message}`));
  }
}

@Controller()
class FailingConsumer {
  @EventPattern(
    'stock.reserved',
    jetStreamConsumer({ durable: 'stock', stream: 'STOCK', maxDeliver: 2, backoff: { initialMs: 20, maxMs: 20 } }),
  )
  reserve(@Payload() body: { sku: string; thrown: string }, @Ctx() ctx: JetStreamContext): Promise<void> {
    if (body.thrown === 'object') throw { code: 'E42', sku: body.sku };
    throw new StockUnavailableError(`sku ${body.sku} is out of stock (delivery ${ctx.getEvent().deliveryCount})`);
  }

  @EventPattern('stock.booked', jetStreamConsumer({ durable: 'ledger', stream: 'STOCK', maxDeliver: 1 }))
  @UseFilters(LedgerFilter)
  book(@Payload() body: { sku: string }): Promise<void> {
    throw new LedgerLockedError(`ledger of ${body.sku} is locked`);
  }
}

/**
 * A handler's failure reaches the dead letter as itself (class and message), not as the
 * "Internal server error" Nest's RPC exception handling puts in its place.
 */
describe('JetStream transport: the dead letter names the handler error (real nats-server)', () => {
  jest.setTimeout(60_000);
  let nats: TestNatsServer;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let app: INestApplication;
  let server: JetStreamServer;
  const namespace = new EventNamespace(`t${randomUUID().slice(0, 8)}`);

  beforeAll(async () => {
    nats = await TestNatsServer.start();
    nc = await connect({ servers: nats.url });
    jsm = await jetstreamManager(nc);
    const ref = await Test.createTestingModule({ controllers: [FailingConsumer] }).compile();
    app = ref.createNestApplication({ logger: false });
    server = await connectJetStream(app, {
      connection: nc,
      namespace,
      streams: [
        { name: namespace.stream('STOCK'), subjects: [namespace.subject('stock.>')], replicas: 1, duplicateWindowMs: 60_000 },
      ],
      restartDelayMs: 100,
    });
    await app.init();
    await server.ready();
  });

  afterAll(async () => {
    await app?.close();
    await nc?.close();
    await nats?.dispose();
  });

  const publish = (subject: string, body: object) =>
    jetstream(nc).publish(namespace.subject(subject), JSON.stringify(body), { msgID: randomUUID() });

  /** The reasons of the dead letters of `durable`, once there are `n` of them. */
  const reasons = async (durable: string, n: number): Promise<string[]> => {
    const end = Date.now() + 30_000;
    while (server.stats(durable).deadLettered < n) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${n} dead letters of ${durable}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const name = namespace.stream('STOCK_DLQ');
    const info = await jsm.streams.info(name);
    const out: string[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(name, { seq });
      if (m && m.subject === namespace.subject(`deadletter.stock.${durable}`)) out.push(m.header.get(DEAD_LETTER_HEADERS.reason));
    }
    return out;
  };

  it('records the class and message of the error the handler threw', async () => {
    await publish('stock.reserved', { sku: 'A-1', thrown: 'error' });
    const [reason, ...more] = await reasons('stock', 1);
    expect(more).toEqual([]);
    expect(reason).toBe('failed 2 deliveries: StockUnavailableError: sku A-1 is out of stock (delivery 2)');
  });

  it('records a thrown value that is not an Error as JSON, and leaves a filter of the handler in charge', async () => {
    await publish('stock.reserved', { sku: 'B-2', thrown: 'object' });
    await publish('stock.booked', { sku: 'C-3' });
    const stock = await reasons('stock', 2);
    expect(stock[1]).toBe('failed 2 deliveries: {"code":"E42","sku":"B-2"}');
    expect(await reasons('ledger', 1)).toEqual(['failed 1 deliveries: Error: ledger filter: ledger of C-3 is locked']);
    expect(stock.join(' ')).not.toMatch(/Internal server error/);
  });
});
