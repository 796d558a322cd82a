import { EVENTS_NAMESPACE_PATTERN, JetStreamReplicas, ToInt, WorkerEnv } from '@vault/platform';
import { IsIn, IsInt, IsString, Matches, Max, Min } from 'class-validator';

export const RUN_MODES = ['inline', 'off'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** Settings of the event stream and of the outbox relay that feeds it, validated at boot. */
export class EventsEnv extends WorkerEnv {
  /** Prefix of subjects (`ns.vault.…`) and stream names (`ns_VAULT_EVENTS`); empty for none. */
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

  /** `inline`: this process relays the outbox; `off`: another process does. */
  @IsIn(RUN_MODES)
  ACTIVITY_LOG_RELAY: RunMode = 'inline';

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
