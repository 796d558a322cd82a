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

  /** A request waiting this long for an upload another request is writing gets 423 upload_locked. */
  @ToInt()
  @IsInt()
  @Min(100)
  TUS_LOCK_TIMEOUT_MS = 10_000;

  /** Uploads one instance may be writing at once (each holds a database connection for its lock). */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(500)
  TUS_MAX_LOCKED_UPLOADS = 20;
}
