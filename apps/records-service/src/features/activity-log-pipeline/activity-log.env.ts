import { ToInt } from '@vault/platform/config';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { EventsEnv, RUN_MODES, RunMode } from '../../capabilities/events/events.env';

/**
 * Settings of the activity-log pipeline: the event stream and relay (EventsEnv) and
 * the durable writer, validated at boot with the service's other variables.
 */
export class ActivityLogEnv extends EventsEnv {
  /** `inline`: this process writes the log; `off`: separate writer processes do. */
  @IsIn(RUN_MODES)
  ACTIVITY_LOG_WRITER: RunMode = 'inline';

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
}
