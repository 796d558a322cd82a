import { ServiceEnv, ToInt } from '@vault/platform/config';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

/** Configuration of records-service, validated at boot. */
export class RecordsEnv extends ServiceEnv {
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT = 3003;

  /** JSON file of plans and licence keys; the shipped default applies without it. */
  @IsOptional()
  @IsString()
  VAULT_PLANS_FILE?: string;

  /** JSON file of brandings per tenant and brandCode; the shipped default applies without it. */
  @IsOptional()
  @IsString()
  VAULT_BRANDING_FILE?: string;

  /** Domain of vault inbox addresses: `email` = `<emailUsername>@<VAULT_INBOX_DOMAIN>`. */
  @IsString()
  @Matches(/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)+$/, {
    message: 'VAULT_INBOX_DOMAIN must be a domain name such as inbox.vault.localhost',
  })
  VAULT_INBOX_DOMAIN = 'inbox.vault.localhost';

  /**
   * Days a vault whose owner deleted its account, and that nobody else holds a role on,
   * is kept before it is removed with its records and files (0: at the next check).
   */
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(3650)
  DELETED_OWNER_VAULT_GRACE_DAYS = 30;
}
