import { SecretSetting, ToInt } from '@vault/platform/config';
import { IsIn, IsInt, IsString, Matches, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import { EventsEnv, RUN_MODES, RunMode } from '../../capabilities/events/events.env';
import { parseKeyring } from './secret-box/secret-box';

/** What is wrong with a WEBHOOK_SECRET_KEYS value, or null when it is a valid keyring. */
function keyringProblem(value: unknown): string | null {
  if (value === undefined) {
    return 'WEBHOOK_SECRET_KEYS is required in production: <keyId>:<base64 of 32 random bytes>[,<keyId>:<key>…] (docs/webhooks.md, Secrets at rest)';
  }
  try {
    parseKeyring(String(value));
    return null;
  } catch (err) {
    return `WEBHOOK_SECRET_KEYS is not a keyring: ${(err as Error).message}`;
  }
}

/** Delays between attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27 h in all). */
export const DEFAULT_RETRY_SCHEDULE_MS = '5000,300000,1800000,7200000,18000000,36000000,36000000';

/** Settings of webhook delivery (docs/webhooks.md, Configuration), validated at boot. */
export class WebhooksEnv extends EventsEnv {
  /** `inline`: this process delivers webhooks; `off`: a `webhook-dispatcher` worker process does. */
  @IsIn(RUN_MODES)
  WEBHOOK_DISPATCHER: RunMode = 'inline';

  /**
   * Comma-separated host names, addresses and CIDRs a webhook may reach although they are
   * loopback, private, link-local or metadata addresses; such targets may also use http.
   */
  @IsString()
  @Matches(/^[A-Za-z0-9.:/_\-, [\]]*$/, {
    message: 'WEBHOOK_ALLOWED_TARGETS lists host names, addresses and CIDRs separated by commas',
  })
  WEBHOOK_ALLOWED_TARGETS = '';

  /** Delays (ms) before each retry after the first attempt, comma-separated; jittered by ±20 %. */
  @IsString()
  @Matches(/^\d+(,\d+)*$/, { message: 'WEBHOOK_RETRY_SCHEDULE_MS is a comma-separated list of milliseconds' })
  WEBHOOK_RETRY_SCHEDULE_MS = DEFAULT_RETRY_SCHEDULE_MS;

  /**
   * Keys that encrypt the signing secrets at rest: `<keyId>:<base64 of 32 bytes>`, comma-separated;
   * the first encrypts, every one decrypts (rotation). Required in production; elsewhere, when
   * unset, a development key is made and kept in .data/webhook-secret-keys.
   */
  @SecretSetting()
  @ValidateIf((e: WebhooksEnv) => e.NODE_ENV === 'production' || e.WEBHOOK_SECRET_KEYS !== undefined)
  @ValidateBy({
    name: 'isKeyring',
    validator: {
      validate: (value: unknown) => keyringProblem(value) === null,
      defaultMessage: (args) => keyringProblem(args?.value) ?? '',
    },
  })
  WEBHOOK_SECRET_KEYS?: string;

  /** A subscription whose deliveries have failed this long without a success is disabled (5 days). */
  @ToInt()
  @IsInt()
  @Min(1000)
  WEBHOOK_DISABLE_AFTER_MS = 432_000_000;

  @ToInt()
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_CONNECT_TIMEOUT_MS = 5000;

  /** Time the receiver has to answer (headers and body). */
  @ToInt()
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_RESPONSE_TIMEOUT_MS = 15_000;

  /** How often due deliveries are looked for (new events wake the dispatcher at once). */
  @ToInt()
  @IsInt()
  @Min(10)
  WEBHOOK_POLL_MS = 1000;

  /**
   * Deliveries attempted at once per process (runs in flight, see WEBHOOK_RUN_MAX). Each
   * vault's events go one at a time, so below the number of vaults with traffic this, not
   * the receivers, bounds the rate.
   */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_CONCURRENCY = 50;

  /**
   * Events of one subscription and vault sent back to back per claim (a run): each only
   * after the previous got a 2xx; a failure ends the run and the later events wait.
   */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(100)
  WEBHOOK_RUN_MAX = 10;

  /** Time JetStream waits for the dispatcher's ack of an event before redelivering it. */
  @ToInt()
  @IsInt()
  @Min(1000)
  WEBHOOK_ACK_WAIT_MS = 30_000;

  /** Deliveries of one event to the dispatcher before it goes to the dead-letter stream. */
  @ToInt()
  @IsInt()
  @Min(1)
  WEBHOOK_MAX_DELIVER = 10;
}

/** The retry delays of WEBHOOK_RETRY_SCHEDULE_MS. */
export const retrySchedule = (env: WebhooksEnv): number[] => env.WEBHOOK_RETRY_SCHEDULE_MS.split(',').map(Number);
