import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  validateSync,
} from 'class-validator';

/** Turns "true"/"1"/"yes" into booleans; anything else stays as given so validation can name it. */
export const ToBoolean = () =>
  Transform(({ value }) => {
    if (typeof value === 'boolean' || value === undefined) return value;
    const v = String(value).toLowerCase();
    if (['true', '1', 'yes'].includes(v)) return true;
    if (['false', '0', 'no'].includes(v)) return false;
    return value;
  });

export const ToInt = () =>
  Transform(({ value }) =>
    value === undefined || value === '' ? undefined : Number(value),
  );

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
}

/** Variables of services that own a database and talk to NATS. */
export class ServiceEnv extends BaseEnv {
  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false })
  DATABASE_URL!: string;

  @ToBoolean()
  @IsIn([true, false])
  DB_MIGRATE_ON_START = true;

  @IsString()
  NATS_URL = 'nats://127.0.0.1:4222';

  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  AUTH_JWKS_URL = 'http://127.0.0.1:3001/api/v1/.well-known/jwks.json';

  @IsString()
  AUTH_ISSUER = 'https://developer-api.localhost:8443/api/v1';

  @IsString()
  AUTH_AUDIENCE = 'vault-api';
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
export function loadEnv<T extends object>(
  cls: new () => T,
  source: Record<string, string | undefined> = process.env,
): T {
  const defined = Object.fromEntries(
    Object.entries(source).filter(([, v]) => v !== undefined && v !== ''),
  );
  const instance = plainToInstance(cls, defined, {
    exposeDefaultValues: true,
  });
  const errors = validateSync(instance, { whitelist: false });
  if (errors.length > 0) {
    throw new EnvValidationError(
      errors.map(
        (e) =>
          `${e.property}: ${Object.values(e.constraints ?? {}).join('; ')} (got ${
            e.value === undefined ? 'nothing' : JSON.stringify(e.value)
          })`,
      ),
    );
  }
  return instance;
}
