import { ServiceEnv, ToInt } from '@vault/platform/config';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of resumable (tus) uploads, validated at boot with the service's other variables. */
export class ResumableEnv extends ServiceEnv {
  /** An upload not finished this long after its creation expires: its bytes are removed, its reservation released. */
  @ToInt()
  @IsInt()
  @Min(1)
  TUS_UPLOAD_EXPIRY_SECONDS = 86_400;

  /** How often expired uploads are looked for. */
  @ToInt()
  @IsInt()
  @Min(50)
  TUS_SWEEP_INTERVAL_MS = 60_000;

  /** Open (unfinished, unexpired) uploads one caller may have at once; one more is 429. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  TUS_MAX_OPEN_UPLOADS = 10;

  /** Open uploads into the records of one tenant at once (all callers); one more is 429. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  TUS_MAX_OPEN_UPLOADS_PER_TENANT = 1000;

  /** Chunks (PATCH) one caller may be sending to one instance at once; one more is 429 with Retry-After. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  TUS_MAX_WRITES_PER_CALLER = 4;

  /** Chunks the callers of one tenant may be sending to one instance at once; one more is 429 with Retry-After. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(100_000)
  TUS_MAX_WRITES_PER_TENANT = 64;

  /** Retry-After (seconds) of a chunk refused for a cap on concurrent chunks. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(3600)
  TUS_WRITES_RETRY_AFTER_SECONDS = 5;

  /**
   * Minimum body rate of a chunk: one whose bytes arrive slower than this over a whole
   * TUS_BODY_RATE_GRACE_MS is ended with 408, the bytes received kept (0: no minimum).
   */
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(1 << 30)
  TUS_MIN_BODY_BYTES_PER_SECOND = 1024;

  /** The window over which a chunk's body rate is measured (and the grace before the first measure). */
  @ToInt()
  @IsInt()
  @Min(1000)
  @Max(600_000)
  TUS_BODY_RATE_GRACE_MS = 20_000;

  /** A request waiting this long for an upload another request is writing gets 423 upload_locked. */
  @ToInt()
  @IsInt()
  @Min(100)
  @Max(600_000)
  TUS_LOCK_TIMEOUT_MS = 10_000;

  /**
   * Uploads one instance may hold locked at once (a HEAD, PATCH or DELETE in progress each);
   * one more is 503 with Retry-After. A held lock costs no database connection.
   */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(100_000)
  TUS_MAX_LOCKED_UPLOADS = 1000;

  /** Database connections holding the upload locks, apart from the service's main pool. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(32)
  TUS_LOCK_CONNECTIONS = 2;

  /** Opening a lock connection, and each lock statement, give up after this long (503 with Retry-After). */
  @ToInt()
  @IsInt()
  @Min(100)
  @Max(60_000)
  TUS_LOCK_STATEMENT_TIMEOUT_MS = 5000;
}
