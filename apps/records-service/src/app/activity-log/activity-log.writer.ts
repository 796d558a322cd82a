import { Inject, Injectable, Logger } from '@nestjs/common';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { DurableConsumerRunner, ensureStream, InvalidMessageError, NATS_CONNECTION } from '@vault/platform';
import { DataSource } from 'typeorm';
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
    private readonly dataSource: DataSource,
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
        commit: (items) => this.store(items.flat()),
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

  /** One statement (one transaction): unnest the columns, skip event/vault pairs already logged. */
  private async store(rows: LogRow[]): Promise<void> {
    if (rows.length === 0) return;
    const col = <K extends keyof LogRow>(k: K) => rows.map((r) => r[k]);
    await this.dataSource.query(
      `INSERT INTO activity_log_entries (event_id, vault_id, tenant_id, subject, entity, event_type, action,
         actor_open_id, actor_name, vault_name, record_id, record_name, file_name, details, occurred_at)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::text[], $9::text[], $10::text[], $11::uuid[], $12::text[], $13::text[], $14::jsonb[], $15::timestamptz[])
       ON CONFLICT (event_id, vault_id) DO NOTHING`,
      [
        col('eventId'),
        col('vaultId'),
        col('tenantId'),
        col('subject'),
        col('entity'),
        col('eventType'),
        col('action'),
        col('actorOpenId'),
        col('actorName'),
        col('vaultName'),
        col('recordId'),
        col('recordName'),
        col('fileName'),
        rows.map((r) => JSON.stringify(r.details)),
        rows.map((r) => r.occurredAt.toISOString()),
      ],
    );
  }
}
