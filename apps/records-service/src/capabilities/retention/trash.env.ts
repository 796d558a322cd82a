import { BaseEnv, ToInt } from '@vault/platform/config';
import { IsIn, IsInt, Max, Min } from 'class-validator';

export const PURGER_MODES = ['inline', 'off'] as const;

/** Settings of the trash and its purger (docs/records-api.md, Trash), validated at boot. */
export class TrashEnv extends BaseEnv {
  /** Days a deleted vault, record or file stays in the trash (a plan's `vault.trashDays` wins). */
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(3650)
  TRASH_RETENTION_DAYS = 30;

  /** How often each instance's purger looks for due items, in milliseconds. */
  @ToInt()
  @IsInt()
  @Min(100)
  @Max(86_400_000)
  TRASH_PURGE_INTERVAL_MS = 60_000;

  /** `inline`: this process runs the purger; `off`: another one does. */
  @IsIn(PURGER_MODES)
  TRASH_PURGER: (typeof PURGER_MODES)[number] = 'inline';
}
