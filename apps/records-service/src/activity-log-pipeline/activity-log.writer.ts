import { Inject, Injectable, Logger } from '@nestjs/common';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { DurableConsumerRunner, ensureStream, InvalidMessageError, NATS_CONNECTION } from '@vault/platform';
import { ActivityLogRepository } from '../persistence/activity-log.repository';
import { ActivityLogEnv } from './activity-log.env';
import { InvalidEventError, LogRow, parseEvent, toLogRows } from './activity-log.mapper';
import { ActivityLogStreams } from './activity-log.streams';

/**
 * The activity-log writer: a durable JetStream consumer that turns each event
 * into its log rows, inserts a batch in one statement with the event id as
 * key (a redelivered event inserts nothing) and acknowledges after the commit.
 * Every writer process shares the same durable consumer.
 */
@Injectable()
export class ActivityLogWriter {
  private readonly logger = new Logger('ActivityLogWriter');
  private runner?: DurableConsumerRunner<LogRow[]>;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly entries: ActivityLogRepository,
    private readonly env: ActivityLogEnv,
    private readonly streams: ActivityLogStreams,
  ) {}

  /** Events stored since start. */
  get processed(): number {
    return this.runner?.processed ?? 0;
  }

  get deadLettered(): number {
    return this.runner?.deadLettered ?? 0;
  }

  async start(): Promise<void> {
    if (this.runner) return;
    const jsm = await jetstreamManager(this.nc);
    // The writer may start before any relay: either side creates the stream.
    await ensureStream(jsm, this.streams.events);
    const runner = new DurableConsumerRunner<LogRow[]>({
      js: jetstream(this.nc),
      jsm,
      consumer: this.streams.consumer,
      deadLetter: this.streams.deadLetter,
      batchSize: this.env.ACTIVITY_LOG_BATCH_SIZE,
      retryDelayMs: 1000,
      logger: this.logger,
      handler: {
        decode: (msg) => this.decode(msg),
        commit: (items) => this.entries.insertNew(items.flat()),
      },
    });
    await runner.start();
    this.runner = runner;
  }

  async stop(): Promise<void> {
    const r = this.runner;
    this.runner = undefined;
    await r?.stop();
  }

  private decode(msg: JsMsg): LogRow[] {
    const eventId = msg.headers?.get('Nats-Msg-Id');
    if (!eventId) throw new InvalidMessageError('no Nats-Msg-Id header (event id)');
    const subject = this.streams.namespace.unprefix(msg.subject);
    let body: unknown;
    try {
      body = msg.json();
    } catch {
      throw new InvalidMessageError('payload is not JSON');
    }
    try {
      return toLogRows(eventId, subject, parseEvent(subject, body));
    } catch (err) {
      if (err instanceof InvalidEventError) throw new InvalidMessageError(err.message);
      throw err;
    }
  }
}
