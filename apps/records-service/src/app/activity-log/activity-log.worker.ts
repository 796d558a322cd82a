import { Global, Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { appLogger, BaseEnv, DatabaseModule, EnvValidationError, loadEnv, NatsModule, ServiceEnv } from '@vault/platform';
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
  providers: [{ provide: ServiceEnv, useFactory: () => loadEnv(ActivityLogEnv) }],
  exports: [ServiceEnv],
})
class WorkerEnvModule {}

/**
 * Root module of a worker process: the validated env, one NATS connection, the
 * database (no migrations: the service or `node main.js migrate` applies them)
 * and the pipeline part the mode names. No HTTP server.
 */
export function workerModule(roles: ActivityLogRoles) {
  @Module({
    imports: [
      WorkerEnvModule,
      NatsModule.forRoot(roles.writer ? 'records-activity-log-writer' : 'records-outbox-relay'),
      DatabaseModule.forRoot({ entities: [ActivityLogEntryEntity, OutboxEventEntity], migrations: [] }),
      ActivityLogPipelineModule.forRoot(roles),
    ],
  })
  class ActivityLogWorkerModule {}
  return ActivityLogWorkerModule;
}

/** Boots a worker process for `mode` and keeps it running until SIGTERM/SIGINT. */
export async function runActivityLogWorker(mode: string): Promise<void> {
  try {
    const app = await NestFactory.createApplicationContext(workerModule(WORKER_MODES[mode]), {
      logger: appLogger(loadEnv(BaseEnv)),
    });
    app.enableShutdownHooks();
    Logger.log(`records-service ${mode} running`, 'Bootstrap');
  } catch (err) {
    console.error(err instanceof EnvValidationError ? err.message : err);
    process.exit(1);
  }
}
