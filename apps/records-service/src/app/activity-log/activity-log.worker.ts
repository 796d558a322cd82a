import { Global, Logger, Module } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import {
  appLogger,
  BaseEnv,
  DatabaseModule,
  EnvValidationError,
  hardenExpress,
  HealthModule,
  loadEnv,
  NatsModule,
  ProblemFilter,
  ServiceEnv,
  ShutdownState,
} from '@vault/platform';
import { OutboxEventEntity } from '../events/outbox-event.entity';
import { ActivityLogEntryEntity } from './activity-log-entry.entity';
import { ActivityLogEnv } from './activity-log.env';
import { ActivityLogPipelineModule } from './activity-log-pipeline.module';
import type { ActivityLogRoles } from './activity-log.runner';

/** Process modes: `node main.js activity-log-writer` / `node main.js activity-log-relay`. */
export const WORKER_MODES: Record<string, ActivityLogRoles> = {
  'activity-log-writer': { relay: false, writer: true },
  'activity-log-relay': { relay: true, writer: false },
};

export const isWorkerMode = (arg: string | undefined): arg is string => !!arg && arg in WORKER_MODES;

@Global()
@Module({
  providers: [
    { provide: ServiceEnv, useFactory: () => loadEnv(ActivityLogEnv) },
    { provide: BaseEnv, useExisting: ServiceEnv },
    ShutdownState,
  ],
  exports: [ServiceEnv, BaseEnv, ShutdownState],
})
class WorkerEnvModule {}

/**
 * Root module of a worker process: the validated env, one NATS connection, the
 * database (no migrations: the service or `node main.js migrate` applies them)
 * and the pipeline part the mode names; with `health`, the /health endpoints
 * (lifecycle, database, NATS) for a small HTTP server.
 */
export function workerModule(roles: ActivityLogRoles, health = false) {
  @Module({
    imports: [
      WorkerEnvModule,
      ...(health ? [HealthModule.forRoot({ database: true, nats: true })] : []),
      NatsModule.forRoot(roles.writer ? 'records-activity-log-writer' : 'records-outbox-relay'),
      DatabaseModule.forRoot({ entities: [ActivityLogEntryEntity, OutboxEventEntity], migrations: [] }),
      ActivityLogPipelineModule.forRoot(roles),
    ],
    providers: health ? [{ provide: APP_FILTER, useClass: ProblemFilter }] : [],
  })
  class ActivityLogWorkerModule {}
  return ActivityLogWorkerModule;
}

/**
 * Boots a worker process for `mode` and keeps it running until SIGTERM/SIGINT; with
 * WORKER_HEALTH_PORT set it also answers /health/live and /health/ready there.
 */
export async function runActivityLogWorker(mode: string): Promise<void> {
  try {
    const env = loadEnv(ActivityLogEnv);
    const logger = appLogger(env);
    const roles = WORKER_MODES[mode];
    if (env.WORKER_HEALTH_PORT === undefined) {
      const ctx = await NestFactory.createApplicationContext(workerModule(roles), { logger });
      ctx.enableShutdownHooks([], { useProcessExit: true });
      Logger.log(`records-service ${mode} running`, 'Bootstrap');
      return;
    }
    const app = await NestFactory.create(workerModule(roles, true), { logger, bodyParser: false });
    hardenExpress(app);
    // After the drain, exit 0 (a clean stop) rather than re-raising the signal.
    app.enableShutdownHooks([], { useProcessExit: true });
    await app.listen(env.WORKER_HEALTH_PORT, env.HOST);
    Logger.log(`records-service ${mode} running; health on ${await app.getUrl()}/health`, 'Bootstrap');
  } catch (err) {
    console.error(err instanceof EnvValidationError ? err.message : err);
    process.exit(1);
  }
}
