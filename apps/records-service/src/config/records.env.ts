import { ServiceEnv, ToInt } from '@vault/platform';
import { IsInt, Max, Min } from 'class-validator';

/** Configuration of records-service, validated at boot. */
export class RecordsEnv extends ServiceEnv {
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT = 3003;
}
