import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { EVENT_STREAMS, type VaultEventBase } from '@vault/contracts';
import { jetStreamConsumer, type JetStreamConsumerOptions, type JetStreamEvent } from '@vault/platform/events';
import { ActivityLogRepository } from '../../persistence/activity-log/activity-log.repository';
import { LOGGED_EVENT_PAYLOADS, toLogRows } from './activity-log.mapper';

const DURABLE = 'activity_log_writer';
const STREAM = EVENT_STREAMS.vaultEvents.name;

/**
 * The writer's durable consumer of the vault events (ack wait, max deliver, batch size
 * and the rest come from ActivityLogEnv, see activity-log.transport.ts).
 */
export const ACTIVITY_LOG_CONSUMER: JetStreamConsumerOptions = {
  durable: DURABLE,
  stream: STREAM,
  payload: LOGGED_EVENT_PAYLOADS,
  batch: true,
  deadLetter: { stream: `${STREAM}_DLQ`, subjects: ['deadletter.vault.>'], subject: `deadletter.vault.${DURABLE}` },
};

/**
 * The activity-log writer, a handler on the JetStream transport: it turns a batch of
 * events into their log rows and inserts them in one statement with the event id as
 * key (a redelivered event inserts nothing); the transport acknowledges the events once
 * the insert committed. Every writer process shares the same durable consumer.
 */
@Controller()
export class ActivityLogWriter {
  constructor(private readonly entries: ActivityLogRepository) {}

  @EventPattern('vault.>', jetStreamConsumer(ACTIVITY_LOG_CONSUMER))
  async write(@Payload() events: JetStreamEvent<VaultEventBase>[]): Promise<void> {
    await this.entries.insertNew(events.flatMap((e) => toLogRows(e.id, e.subject, e.data)));
  }
}
