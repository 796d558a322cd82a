import { SecretSetting, ServiceEnv, ToInt } from '@vault/platform/config';
import { EVENTS_NAMESPACE_PATTERN } from '@vault/platform/events';
import {
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidationArguments,
} from 'class-validator';

/** The verifiers' background JWKS refresh (JWKS_REFRESH_INTERVAL_MS of libs/platform/src/auth/jwks-key-store.ts). */
const VERIFIER_JWKS_REFRESH_SECONDS = 300;

/** The shortest publish lead: every verifier has fetched a new key before it signs. */
function publishLeadFloor(env: DeveloperEnv): number {
  return VERIFIER_JWKS_REFRESH_SECONDS + env.SIGNING_KEY_CHECK_SECONDS;
}

/**
 * SIGNING_KEY_PUBLISH_LEAD_SECONDS covers the verifiers' refresh and this service's check
 * interval, so that a new key is published everywhere before it signs (rotation on).
 */
function leadCoversPublication(lead: unknown, args?: ValidationArguments): boolean {
  const env = args?.object as DeveloperEnv;
  return env.SIGNING_KEY_ROTATION_DAYS === 0 || (typeof lead === 'number' && lead >= publishLeadFloor(env));
}

const CoversKeyPublication = () =>
  ValidateBy({
    name: 'coversKeyPublication',
    validator: {
      validate: leadCoversPublication,
      defaultMessage: (args?: ValidationArguments) =>
        `must be at least ${publishLeadFloor(args?.object as DeveloperEnv)} (the verifiers' JWKS refresh of ${VERIFIER_JWKS_REFRESH_SECONDS} s plus SIGNING_KEY_CHECK_SECONDS)`,
    },
  });

/** REFRESH_TOKEN_FAMILY_TTL_SECONDS is at least REFRESH_TOKEN_TTL_SECONDS (a family outlives each of its tokens). */
const CoversRefreshTokenLifetime = () =>
  ValidateBy({
    name: 'coversRefreshTokenLifetime',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) =>
        typeof value === 'number' && value >= (args?.object as DeveloperEnv).REFRESH_TOKEN_TTL_SECONDS,
      defaultMessage: () => 'must be at least REFRESH_TOKEN_TTL_SECONDS',
    },
  });

/** Configuration of developer-service, validated at boot. */
export class DeveloperEnv extends ServiceEnv {
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  override PORT = 3001;

  /** JSON file of tenants, applications and organisation users applied at start. */
  @IsOptional()
  @IsString()
  VAULT_BOOTSTRAP_FILE?: string;

  /** `iss` of issued tokens; when unset, AUTH_ISSUER (what the services verify against). */
  @IsOptional()
  @IsString()
  TOKEN_ISSUER?: string;

  /**
   * Prefix of the event subjects and stream names this service reads (the user module's
   * account events, `ns.account.…` in `ns_ACCOUNT_EVENTS`); the same value as the user
   * module's. Empty for none.
   */
  @IsString()
  @Matches(EVENTS_NAMESPACE_PATTERN, { message: 'EVENTS_NAMESPACE may hold letters, digits, _ and - only' })
  EVENTS_NAMESPACE = '';

  /** `aud` of issued tokens; when unset, AUTH_AUDIENCE. */
  @IsOptional()
  @IsString()
  TOKEN_AUDIENCE?: string;

  @ToInt()
  @IsInt()
  @Min(60)
  @Max(3600)
  TOKEN_TTL_SECONDS = 900;

  /**
   * How long a refresh token may wait before its use (each use answers a new one): 5 minutes
   * to 90 days, default 14 days.
   */
  @ToInt()
  @IsInt()
  @Min(300)
  @Max(90 * 86400)
  REFRESH_TOKEN_TTL_SECONDS = 14 * 86400;

  /**
   * Absolute lifetime of a refresh-token family, from the sign-in that started it: past it
   * the user signs in again, however often the tokens were used. At least
   * REFRESH_TOKEN_TTL_SECONDS, at most 365 days; default 30 days.
   */
  @ToInt()
  @IsInt()
  @Min(300)
  @Max(365 * 86400)
  @CoversRefreshTokenLifetime()
  REFRESH_TOKEN_FAMILY_TTL_SECONDS = 30 * 86400;

  /**
   * When set, the private signing key is stored encrypted (AES-256-GCM) with a key derived from it.
   * Secret: a malformed value is named at start, never shown.
   */
  @SecretSetting()
  @IsOptional()
  @IsString()
  @MinLength(16)
  @MaxLength(1024)
  KEY_ENCRYPTION_SECRET?: string;

  /** Days a signing key signs before the next one takes over (0: no scheduled rotation). */
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(3650)
  SIGNING_KEY_ROTATION_DAYS = 90;

  /**
   * How long a new key is published in the JWKS before it signs. At least the verifiers'
   * JWKS refresh interval (300 s, libs/platform jwks-key-store) plus SIGNING_KEY_CHECK_SECONDS.
   */
  @ToInt()
  @IsInt()
  @Min(300)
  @Max(7 * 86400)
  @CoversKeyPublication()
  SIGNING_KEY_PUBLISH_LEAD_SECONDS = 900;

  /** Clock difference allowed between this service and the verifiers; a retired key stays published for TOKEN_TTL_SECONDS plus this. */
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(3600)
  SIGNING_KEY_CLOCK_SKEW_SECONDS = 60;

  /** How often each replica reloads the keys and the rotation is checked. */
  @ToInt()
  @IsInt()
  @Min(5)
  @Max(300)
  SIGNING_KEY_CHECK_SECONDS = 60;

  /** Failed sign-ins of one user from one address before its next attempts are delayed (1 s, 2 s, 4 s …). */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  AUTH_MAX_FAILURES = 5;

  /** Failed logins per client IP address within the window before 429. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(100000)
  AUTH_MAX_FAILURES_PER_IP = 100;

  @ToInt()
  @IsInt()
  @Min(1)
  @Max(86400)
  AUTH_FAILURE_WINDOW_SECONDS = 900;

  /**
   * Key of the device cookies a successful sign-in sets (docs/developer-api.md, "Device
   * cookies"); unset: derived from KEY_ENCRYPTION_SECRET, else random per process. Secret.
   */
  @SecretSetting()
  @IsOptional()
  @IsString()
  @MinLength(32)
  @MaxLength(1024)
  AUTH_DEVICE_SECRET?: string;

  /** Days a device cookie vouches for its login (each success issues a new one). */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(3650)
  AUTH_DEVICE_COOKIE_DAYS = 180;

  /** Failed sign-ins with one device cookie within AUTH_FAILURE_WINDOW_SECONDS before it counts as an unknown client. */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  AUTH_DEVICE_MAX_FAILURES = 10;
}

/** Issuer and audience written into tokens (falling back to what verifiers are configured with). */
export function tokenIdentity(env: DeveloperEnv): {
  issuer: string;
  audience: string;
} {
  return {
    issuer: env.TOKEN_ISSUER ?? env.AUTH_ISSUER,
    audience: env.TOKEN_AUDIENCE ?? env.AUTH_AUDIENCE,
  };
}
