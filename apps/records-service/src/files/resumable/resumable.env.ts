import { BaseEnv, ToInt } from '@vault/platform';
import { IsInt, Max, Min } from 'class-validator';

/** Settings of resumable (tus) uploads, validated at boot with the service's other variables. */
export class ResumableEnv extends BaseEnv {
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
}
