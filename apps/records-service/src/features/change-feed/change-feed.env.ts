import { ToInt } from '@vault/platform/config';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { EventsEnv, RUN_MODES, RunMode } from '../../capabilities/events/events.env';

/** Settings of the vault change feed (docs/change-feed.md, Configuration), validated at boot. */
export class ChangeFeedEnv extends EventsEnv {
  /** `inline`: this process fills the feed from the vault events; `off`: other processes do. */
  @IsIn(RUN_MODES)
  CHANGE_FEED_WRITER: RunMode = 'inline';

  /**
   * Time JetStream waits for the writer's ack of a batch of vault events before handing
   * them out again (the insert ignores events already in the feed).
   */
  @ToInt()
  @IsInt()
  @Min(1000)
  @Max(600_000)
  CHANGE_FEED_ACK_WAIT_MS = 30_000;

  /** Days an event stays in the feed; older ones are pruned and cursors before them answer 410. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(3650)
  CHANGE_FEED_RETENTION_DAYS = 30;

  /** How often a vault's reader looks for new events without a signal (and re-checks its callers' access). */
  @ToInt()
  @IsInt()
  @Min(20)
  @Max(60_000)
  CHANGE_FEED_POLL_MS = 500;

  /** Interval of the comment line an idle event stream sends to keep proxies from closing it. */
  @ToInt()
  @IsInt()
  @Min(100)
  @Max(120_000)
  CHANGE_FEED_HEARTBEAT_MS = 15_000;

  /**
   * Bytes a live event stream may still have unsent when new events come; beyond that its
   * client is too far behind and the stream is closed (the client resumes with Last-Event-ID).
   */
  @ToInt()
  @IsInt()
  @Min(4096)
  CHANGE_FEED_STREAM_BUFFER_BYTES = 1_048_576;

  /**
   * Live event streams one caller (tenant and openId) may hold open on one instance at once;
   * one more is refused with 429 and Retry-After (docs/change-feed.md, Limits).
   */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  CHANGE_FEED_MAX_STREAMS_PER_CALLER = 10;

  /** Live event streams the callers of one tenant may hold open on one instance at once (429 beyond). */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(100_000)
  CHANGE_FEED_MAX_STREAMS_PER_TENANT = 1000;

  /** Retry-After (seconds) of a stream refused for a cap. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(3600)
  CHANGE_FEED_STREAM_RETRY_AFTER_SECONDS = 30;

  /** How often expired events are pruned. */
  @ToInt()
  @IsInt()
  @Min(1000)
  CHANGE_FEED_PRUNE_MS = 3_600_000;
}
