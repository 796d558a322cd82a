import { EVENT_STREAMS } from '@vault/contracts';
import { DeadLetterSpec, DurableConsumerSpec } from '@vault/platform';
import { EventStreams } from '../events/event-streams';
import { ActivityLogEnv } from './activity-log.env';

const ACTIVITY_LOG_DURABLE = 'activity_log_writer';

/** The writer's durable consumer and dead-letter stream on the vault events stream. */
export class ActivityLogStreams extends EventStreams {
  readonly consumer: DurableConsumerSpec;
  readonly deadLetter: DeadLetterSpec;

  constructor(env: ActivityLogEnv) {
    super(env);
    const ns = this.namespace;
    this.consumer = {
      stream: this.events.name,
      durable: ACTIVITY_LOG_DURABLE,
      filterSubject: ns.subject('vault.>'),
      ackWaitMs: env.ACTIVITY_LOG_ACK_WAIT_MS,
      maxDeliver: env.ACTIVITY_LOG_MAX_DELIVER,
      maxAckPending: env.ACTIVITY_LOG_MAX_ACK_PENDING,
    };
    this.deadLetter = {
      stream: {
        name: ns.stream(`${EVENT_STREAMS.vaultEvents.name}_DLQ`),
        subjects: [ns.subject('deadletter.vault.>')],
        replicas: env.EVENTS_STREAM_REPLICAS,
        duplicateWindowMs: env.EVENTS_DUPLICATE_WINDOW_MS,
      },
      subject: ns.subject(`deadletter.vault.${ACTIVITY_LOG_DURABLE}`),
    };
  }
}
