import { ServiceEnv, ToInt } from '@vault/platform';
import { IsInt, Max, Min } from 'class-validator';

/** Configuration of user-service, validated at boot. */
export class UserEnv extends ServiceEnv {
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT = 3002;
}
