import { DynamicModule, Global, INestApplication, Logger, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BaseEnv, EnvValidationError, loadEnv, ServiceEnv, WorkerEnv } from '../config/env';
import { DatabaseModule, DatabaseOptions } from '../persistence/database.module';
import { HealthModule } from '../health/health.module';
import { ShutdownState } from '../health/shutdown-state';
import { NatsModule } from '../events/nats/nats.module';
import { useHttpMetrics } from '../observability/http-metrics';
import { instrumentApp } from './instrument-app';
import { metricsMiddleware } from '../observability/metrics-server';
import { appLogger } from './app-logger';
import { hardenExpress } from './configure-app';
import { problemFilterProviders } from './platform.module';

export interface WorkerOptions {
  /** Process name in logs and on the NATS connection. */
  name: string;
  /** The worker's env class, validated at start (the error names every bad variable). */
  env: Type<WorkerEnv>;
  /** The worker's entities; no migrations (the service or `node main.js migrate` applies them). */
  database: DatabaseOptions;
  /** The modules that do the worker's work. */
  imports: (Type | DynamicModule)[];
  /** Connects the worker's transports (e.g. connectJetStream) before the app starts. */
  connect?: (app: INestApplication) => Promise<unknown>;
}

/**
 * Root module of a worker process: the validated env, one NATS connection, the
 * database, the worker's own modules; with `health`, the /health endpoints (lifecycle,
 * database, NATS) and the problem filter for a small HTTP server.
 */
export function workerModule(options: WorkerOptions, health = false): Type {
  @Global()
  @Module({
    providers: [
      { provide: ServiceEnv, useFactory: () => loadEnv(options.env) },
      { provide: BaseEnv, useExisting: ServiceEnv },
      ShutdownState,
    ],
    exports: [ServiceEnv, BaseEnv, ShutdownState],
  })
  class WorkerEnvModule {}

  @Module({
    imports: [
      WorkerEnvModule,
      ...(health ? [HealthModule.forRoot({ database: true, nats: true })] : []),
      NatsModule.forRoot(options.name),
      DatabaseModule.forRoot({ ...options.database, migrations: [] }),
      ...options.imports,
    ],
    providers: health ? problemFilterProviders() : [],
  })
  class WorkerRootModule {}
  return WorkerRootModule;
}

/**
 * Boots a worker process (no public HTTP) and keeps it running until SIGTERM/SIGINT,
 * then drains and exits 0; with WORKER_HEALTH_PORT set it also answers /health/live
 * and /health/ready there. An invalid env stops it with the variables named.
 */
export async function runWorker(options: WorkerOptions): Promise<void> {
  try {
    const env = loadEnv(options.env);
    const logger = appLogger(env);
    if (env.WORKER_HEALTH_PORT === undefined && options.connect) {
      // A hybrid app without HTTP server: its transports are microservices of the app.
      const app = await NestFactory.create(workerModule(options), { logger, bodyParser: false });
      await options.connect(app);
      app.enableShutdownHooks([], { useProcessExit: true });
      await app.init();
      await instrumentApp(app, { name: options.name, metricsPort: env.METRICS_PORT, host: env.HOST, nats: true, database: true });
      Logger.log(`${options.name} running`, 'Bootstrap');
      return;
    }
    if (env.WORKER_HEALTH_PORT === undefined) {
      const ctx = await NestFactory.createApplicationContext(workerModule(options), { logger });
      ctx.enableShutdownHooks([], { useProcessExit: true });
      await instrumentApp(ctx, { name: options.name, metricsPort: env.METRICS_PORT, host: env.HOST, nats: true, database: true });
      Logger.log(`${options.name} running`, 'Bootstrap');
      return;
    }
    const app = await NestFactory.create(workerModule(options, true), { logger, bodyParser: false });
    hardenExpress(app);
    // Scrapes first, so that they are not counted as requests themselves.
    app.use(metricsMiddleware);
    useHttpMetrics(app);
    // Its transports too (a hybrid app: the health server beside the consumers).
    if (options.connect) await options.connect(app);
    // After the drain, exit 0 (a clean stop) rather than re-raising the signal.
    app.enableShutdownHooks([], { useProcessExit: true });
    await app.listen(env.WORKER_HEALTH_PORT, env.HOST);
    await instrumentApp(app, { name: options.name, metricsPort: env.METRICS_PORT, host: env.HOST, nats: true, database: true });
    Logger.log(`${options.name} running; health on ${await app.getUrl()}/health`, 'Bootstrap');
  } catch (err) {
    console.error(err instanceof EnvValidationError ? err.message : err);
    process.exit(1);
  }
}
