import { INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { BaseEnv, EnvValidationError, loadEnv, ServiceEnv } from '../config/env';
import { connectDatabase, DatabaseOptions, dataSourceOptions, migrateWithLock } from '../persistence/database.module';
import { PlatformExpressAdapter } from '../http/express-adapter';
import { useRequestIds } from '../http/request-id.middleware';
import { instrumentApp } from './instrument-app';
import { serviceName } from '../observability/tracing';
import { appLogger } from './app-logger';
import { AppDescription, configureApp } from './configure-app';

/**
 * Boots a service: validated config (fails fast naming the variable), shared
 * app configuration, shutdown hooks for SIGTERM/SIGINT, then listens on PORT.
 */
export interface RunOptions {
  /** The service's entities and migrations: enables `node main.js migrate`. */
  database?: DatabaseOptions;
  /** Extra setup on the app before it listens. */
  configure?: (app: NestExpressApplication) => void | Promise<void>;
}

export async function runService(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  module: any,
  desc: AppDescription,
  options: RunOptions = {},
): Promise<INestApplication | undefined> {
  if (process.argv[2] === 'migrate') {
    await runMigrations(options.database);
    return undefined;
  }
  const configure = options.configure;
  try {
    const app = await NestFactory.create<NestExpressApplication>(module, new PlatformExpressAdapter(), {
      logger: startupLogger(),
      bufferLogs: false,
      forceCloseConnections: false,
      // Bodies are read by the platform's RequestBodyGuard (http/request-body.ts).
      bodyParser: false,
    });
    const env = app.get(BaseEnv);
    useRequestIds(app);
    configureApp(app, desc);
    if (configure) await configure(app);
    // After the drain, exit 0 (a clean stop) rather than re-raising the signal,
    // which would end the process with status 143.
    app.enableShutdownHooks([], { useProcessExit: true });
    await app.listen(env.PORT, env.HOST);
    await instrumentApp(app, {
      name: serviceName(),
      metricsPort: env.METRICS_PORT,
      host: env.HOST,
      nats: env instanceof ServiceEnv,
      database: env instanceof ServiceEnv,
    });
    Logger.log(`${desc.title} listening on ${await app.getUrl()}`, 'Bootstrap');
    return app;
  } catch (err) {
    const cause = findEnvError(err);
    if (cause) {
      console.error(cause.message);
    } else {
      console.error(err);
    }
    process.exit(1);
  }
}

/**
 * The logger for the app's whole life. A malformed LOG_LEVEL or LOG_FORMAT falls back to
 * the defaults here, so that the app's own validation reports it together with every
 * other invalid variable in one go.
 */
function startupLogger() {
  try {
    return appLogger(loadEnv(BaseEnv));
  } catch {
    return appLogger({ LOG_LEVEL: 'log', LOG_FORMAT: 'text' });
  }
}

function findEnvError(err: unknown): EnvValidationError | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof EnvValidationError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * `node main.js migrate`: applies pending migrations to DATABASE_URL and exits
 * (used by the deploy migration jobs and the `migrate` Nx target).
 */
async function runMigrations(database: DatabaseOptions | undefined): Promise<void> {
  if (!database) {
    console.error('This app has no database to migrate.');
    process.exit(1);
  }
  try {
    const env = loadEnv(ServiceEnv);
    const ds = await connectDatabase(dataSourceOptions(env.DATABASE_URL, database, false));
    const applied = await migrateWithLock(ds);
    console.log(`Applied ${applied.length} migration(s): ${applied.map((m) => m.name).join(', ') || 'none pending'}`);
    await ds.destroy();
    process.exit(0);
  } catch (err) {
    console.error(err instanceof EnvValidationError ? err.message : err);
    process.exit(1);
  }
}
