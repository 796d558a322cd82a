import { ToInt, UrlSetting } from '@vault/platform/config';
import { OutboxEventsEnv } from '@vault/platform/events';
import { IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';

/** Configuration of user-service (with its account events stream and relay), validated at boot. */
export class UserEnv extends OutboxEventsEnv {
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT = 3002;

  /** SMTP server for outgoing mail (`smtp://user:pass@host:587`, `smtps://...`). Unset: mail goes to MAIL_DIR. */
  @UrlSetting()
  @IsOptional()
  @IsUrl({ protocols: ['smtp', 'smtps'], require_tld: false, require_protocol: true })
  SMTP_URL?: string;

  /** Sender address of outgoing mail. */
  @IsString()
  MAIL_FROM = 'Vault <no-reply@vault.localhost>';

  /** Folder where mail is written as .eml files when SMTP_URL is unset. */
  @IsString()
  MAIL_DIR = '.data/mail';

  /** Folder where the local SMS adapter writes text messages as .json files. */
  @IsString()
  SMS_DIR = '.data/sms';

  /** Least number of seconds between two MFA codes sent for one account. */
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(3600)
  MFA_RESEND_INTERVAL_SECONDS = 30;

  /** Invitations one identity may send per rolling hour (beyond: 429). */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(10000)
  INVITATIONS_PER_HOUR = 20;

  /** Hours an invitation code stays valid. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(24 * 90)
  INVITATION_TTL_HOURS = 168;

  /** Accounts per transaction of `node main.js account-events-backfill`. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(5000)
  ACCOUNT_EVENTS_BACKFILL_BATCH_SIZE = 500;
}
