import { applyDecorators } from '@nestjs/common';
import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min, ValidateBy, validateSync } from 'class-validator';
import { isIP } from 'node:net';
import { redactUrl } from './url-credentials';

/** Turns "true"/"1"/"yes" into booleans; anything else stays as given so validation can name it. */
export const ToBoolean = () =>
  Transform(({ value }) => {
    if (typeof value === 'boolean' || value === undefined) return value;
    const v = String(value).toLowerCase();
    if (['true', '1', 'yes'].includes(v)) return true;
    if (['false', '0', 'no'].includes(v)) return false;
    return value;
  });

/** Default of TRUSTED_PROXIES: the gateway runs on the same host. */
export const LOOPBACK_PROXIES = '127.0.0.0/8,::1';

/**
 * Splits a comma-separated list of addresses and CIDR ranges (`10.0.0.0/8, fd00::/8, 127.0.0.1`)
 * into its entries; throws naming the first entry that is neither.
 */
export function parseAddressList(value: string): string[] {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 6 ? 128 : 32;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new Error(`not an address or CIDR range: ${entry}`);
    }
  }
  return entries;
}

export const ToInt = () => Transform(({ value }) => (value === undefined || value === '' ? undefined : Number(value)));

/** How a validation error shows a setting's value: not at all, or as a URL without its credentials. */
type SettingDisplay = 'secret' | 'url';

/** Properties of env classes whose values are not shown as given (by class prototype). */
const settingDisplays = new WeakMap<object, Map<string | symbol, SettingDisplay>>();

const displayAs =
  (display: SettingDisplay): PropertyDecorator =>
  (target, property) => {
    settingDisplays.set(target, new Map([...(settingDisplays.get(target) ?? []), [property, display]]));
  };

/**
 * Marks a variable as secret: a validation error names it and says why, but never shows its value.
 */
export const SecretSetting = (): PropertyDecorator => displayAs('secret');

/**
 * Marks a URL that may carry a user name and password (`postgres://user:password@host/db`): a
 * validation error shows it with them hidden (redactUrl). Whatever else puts such a URL into a
 * message or a log line shows it through redactUrl too (connectionFailure at start).
 */
export const UrlSetting = (): PropertyDecorator => displayAs('url');

function settingDisplay(instance: object, property: string): SettingDisplay | undefined {
  for (let p = Object.getPrototypeOf(instance); p; p = Object.getPrototypeOf(p)) {
    const display = settingDisplays.get(p)?.get(property);
    if (display) return display;
  }
  return undefined;
}

/** A value as a validation error shows it. */
function shownValue(instance: object, property: string, value: unknown): string {
  if (value === undefined) return 'nothing';
  const display = settingDisplay(instance, property);
  if (display === 'secret') return 'a value that is not shown';
  return JSON.stringify(display === 'url' ? redactUrl(String(value)) : value);
}

/**
 * Variables every service reads. A service extends this class with its own and
 * passes the subclass to PlatformModule.forRoot; it is validated at boot.
 */
export class BaseEnv {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  @IsString()
  @IsOptional()
  HOST = '0.0.0.0';

  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  /** `text`: readable lines; `json`: one JSON object per line, for log collectors. */
  @IsIn(['text', 'json'])
  LOG_FORMAT: 'text' | 'json' = 'text';

  /** Milliseconds between turning not-ready on SIGTERM and closing the server. */
  @ToInt()
  @IsInt()
  @Min(0)
  SHUTDOWN_DELAY_MS = 0;

  /**
   * Port of the /metrics-only server (Prometheus text format), apart from the app's port so
   * that no public route reaches it; unset: no metrics server (workers also serve /metrics
   * on WORKER_HEALTH_PORT).
   */
  @IsOptional()
  @ToInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT?: number;
}

/** Variables of services that own a database and talk to NATS. */
/** A replica count of JetStream streams or KV buckets: 1 to 5 (JetStream's limit). */
export const JetStreamReplicas = () => applyDecorators(ToInt(), IsInt(), Min(1), Max(5));

export class ServiceEnv extends BaseEnv {
  @UrlSetting()
  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false })
  DATABASE_URL!: string;

  @ToBoolean()
  @IsIn([true, false])
  DB_MIGRATE_ON_START = true;

  @UrlSetting()
  @IsString()
  NATS_URL = 'nats://127.0.0.1:4222';

  /**
   * Replicas of the JetStream KV buckets a service creates (the revoked-token set): one
   * per NATS server, at most 5. A bucket that exists keeps its replicas (docs/deploy.md).
   */
  @JetStreamReplicas()
  KV_REPLICAS = 1;

  /** Fetched without credentials: a URL carrying a user name or password is refused. */
  @UrlSetting()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], disallow_auth: true })
  AUTH_JWKS_URL = 'http://127.0.0.1:3001/api/v1/.well-known/jwks.json';

  @IsString()
  AUTH_ISSUER = 'https://developer-api.localhost:8443/api/v1';

  @IsString()
  AUTH_AUDIENCE = 'vault-api';

  /**
   * Proxies whose X-Forwarded-For the service believes (the gateway), as comma-separated
   * addresses or CIDR ranges. A request from any other address is keyed by its socket
   * address (`req.ip`), whatever headers it carries. Default: loopback only (`npm start`
   * runs the gateway on the same host).
   */
  @ValidateBy({
    name: 'isAddressList',
    validator: {
      validate: (value: unknown) => {
        try {
          return typeof value === 'string' && parseAddressList(value).length > 0;
        } catch {
          return false;
        }
      },
      defaultMessage: () => 'TRUSTED_PROXIES must list addresses or CIDR ranges separated by commas',
    },
  })
  TRUSTED_PROXIES = LOOPBACK_PROXIES;

  /** `true`: PUT and DELETE of versioned resources without If-Match answer 428 (docs/retries-and-concurrency.md). */
  @ToBoolean()
  @IsIn([true, false])
  REQUIRE_IF_MATCH = false;
}

/** Settings every worker process has beside a service's. */
export class WorkerEnv extends ServiceEnv {
  /**
   * Worker processes serve /health/live and /health/ready on this port (on HOST) when
   * it is set, and /metrics (Prometheus) beside them; unset: no HTTP server.
   */
  @IsOptional()
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  WORKER_HEALTH_PORT?: number;
}

export class EnvValidationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

/**
 * Validates `source` (process.env by default) against an env class; throws an
 * error naming every missing or malformed variable.
 */
export function loadEnv<T extends object>(cls: new () => T, source: Record<string, string | undefined> = process.env): T {
  const defined = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const instance = plainToInstance(cls, defined, {
    exposeDefaultValues: true,
  });
  const errors = validateSync(instance, { whitelist: false });
  if (errors.length > 0) {
    throw new EnvValidationError(
      errors.map(
        (e) =>
          `${e.property}: ${Object.values(e.constraints ?? {}).join('; ')} (got ${shownValue(instance, e.property, e.value)})`,
      ),
    );
  }
  return instance;
}
