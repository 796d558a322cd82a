import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { JetStreamReplicas, ToInt, WorkerEnv } from '../../config/env';
import { EVENTS_NAMESPACE_PATTERN } from '../jetstream/namespace';

/**
 * Settings of a service that relays a transactional outbox to a JetStream event
 * stream (the stream and the relay), validated at boot with the service's others.
 */
export class OutboxEventsEnv extends WorkerEnv {
  /** Prefix of subjects (`ns.account.…`) and stream names (`ns_ACCOUNT_EVENTS`); empty for none. */
  @IsString()
  @Matches(EVENTS_NAMESPACE_PATTERN, { message: 'EVENTS_NAMESPACE may hold letters, digits, _ and - only' })
  EVENTS_NAMESPACE = '';

  /** Replicas of the event streams (3 on a NATS cluster). */
  @JetStreamReplicas()
  EVENTS_STREAM_REPLICAS = 1;

  /** JetStream duplicate window (drops a re-published event id inside it). */
  @ToInt()
  @IsInt()
  @Min(1000)
  EVENTS_DUPLICATE_WINDOW_MS = 120_000;

  /** Outbox rows published per relay transaction. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(5000)
  OUTBOX_RELAY_BATCH_SIZE = 500;

  /** Fallback poll interval of the relay (LISTEN/NOTIFY wakes it at once). */
  @ToInt()
  @IsInt()
  @Min(10)
  OUTBOX_RELAY_POLL_MS = 1000;

  /** Published outbox rows are deleted after this many minutes (7 days by default). */
  @ToInt()
  @IsInt()
  @Min(0)
  OUTBOX_RETENTION_MINUTES = 10_080;
}
