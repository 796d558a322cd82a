import { EVENT_STREAMS } from '@vault/contracts';
import {
  DeadLetterSpec,
  DurableConsumerSpec,
  EventNamespace,
  StreamSpec,
} from '@vault/platform';
import { ActivityLogEnv } from './activity-log.env';

export const ACTIVITY_LOG_DURABLE = 'activity_log_writer';
export const OUTBOX_TABLE = 'outbox_events';
export const OUTBOX_CHANNEL = 'outbox_events';

/** Stream, consumer and dead-letter names of the activity log, inside the configured namespace. */
export class ActivityLogStreams {
  readonly namespace: EventNamespace;
  readonly events: StreamSpec;
  readonly consumer: DurableConsumerSpec;
  readonly deadLetter: DeadLetterSpec;

  constructor(env: ActivityLogEnv) {
    const ns = new EventNamespace(env.EVENTS_NAMESPACE);
    this.namespace = ns;
    const base = EVENT_STREAMS.vaultEvents;
    this.events = {
      name: ns.stream(base.name),
      subjects: base.subjects.map((s) => ns.subject(s)),
      replicas: env.EVENTS_STREAM_REPLICAS,
      duplicateWindowMs: env.EVENTS_DUPLICATE_WINDOW_MS,
    };
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
        name: ns.stream(`${base.name}_DLQ`),
        subjects: [ns.subject('deadletter.vault.>')],
        replicas: env.EVENTS_STREAM_REPLICAS,
        duplicateWindowMs: env.EVENTS_DUPLICATE_WINDOW_MS,
      },
      subject: ns.subject(`deadletter.vault.${ACTIVITY_LOG_DURABLE}`),
    };
  }
}
