import { EVENTS_NAMESPACE_PATTERN, ServiceEnv, ToInt } from '@vault/platform';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export const RUN_MODES = ['inline', 'off'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/**
 * Settings of the activity log pipeline (outbox relay, JetStream stream,
 * durable writer), validated at boot with the service's other variables.
 */
export class ActivityLogEnv extends ServiceEnv {
  /** Prefix of subjects (`ns.vault.…`) and stream names (`ns_VAULT_EVENTS`); empty for none. */
  @IsString()
  @Matches(EVENTS_NAMESPACE_PATTERN, { message: 'EVENTS_NAMESPACE may hold letters, digits, _ and - only' })
  EVENTS_NAMESPACE = '';

  /** Replicas of the event streams (3 on a NATS cluster). */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(5)
  EVENTS_STREAM_REPLICAS = 1;

  /** JetStream duplicate window (drops a re-published event id inside it). */
  @ToInt()
  @IsInt()
  @Min(1000)
  EVENTS_DUPLICATE_WINDOW_MS = 120_000;

  /** `inline`: this process relays the outbox; `off`: another process does. */
  @IsIn(RUN_MODES)
  ACTIVITY_LOG_RELAY: RunMode = 'inline';

  /** `inline`: this process writes the log; `off`: separate writer processes do. */
  @IsIn(RUN_MODES)
  ACTIVITY_LOG_WRITER: RunMode = 'inline';

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

  @ToInt()
  @IsInt()
  @Min(1)
  @Max(5000)
  ACTIVITY_LOG_BATCH_SIZE = 500;

  /** Time JetStream waits for the writer's ack before redelivering. */
  @ToInt()
  @IsInt()
  @Min(1000)
  ACTIVITY_LOG_ACK_WAIT_MS = 30_000;

  /** Deliveries of one event before it goes to the dead-letter stream. */
  @ToInt()
  @IsInt()
  @Min(1)
  ACTIVITY_LOG_MAX_DELIVER = 10;

  /** Unacknowledged events handed to the writers at most. */
  @ToInt()
  @IsInt()
  @Min(1)
  ACTIVITY_LOG_MAX_ACK_PENDING = 5000;

  /**
   * Worker processes (`main.js activity-log-writer|relay`) serve /health/live and
   * /health/ready on this port (on HOST) when it is set; unset: no HTTP server.
   */
  @IsOptional()
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  WORKER_HEALTH_PORT?: number;
}
