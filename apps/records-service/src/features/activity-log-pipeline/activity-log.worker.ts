import { runWorker, WorkerOptions } from '@vault/platform/bootstrap';
import { ActivityLogEntryEntity } from '../../persistence/activity-log/activity-log-entry.entity';
import { OutboxEventEntity } from '../../persistence/outbox/outbox-event.entity';
import { ActivityLogEnv } from './activity-log.env';
import { ActivityLogPipelineModule } from './activity-log-pipeline.module';
import type { ActivityLogRoles } from './activity-log.runner';
import { startActivityLogWriter } from './activity-log.transport';

/** Process modes: `node main.js activity-log-writer` / `node main.js activity-log-relay`. */
const WORKER_MODES: Record<string, ActivityLogRoles> = {
  'activity-log-writer': { relay: false, writer: true },
  'activity-log-relay': { relay: true, writer: false },
};

export const isWorkerMode = (arg: string | undefined): arg is string => !!arg && arg in WORKER_MODES;

/** A worker process running the pipeline parts `roles` names. */
export function activityLogWorker(roles: ActivityLogRoles): WorkerOptions {
  return {
    name: roles.writer ? 'records-activity-log-writer' : 'records-outbox-relay',
    env: ActivityLogEnv,
    database: { entities: [ActivityLogEntryEntity, OutboxEventEntity], migrations: [] },
    imports: [ActivityLogPipelineModule.forRoot(roles)],
    connect: roles.writer ? startActivityLogWriter : undefined,
  };
}

/** Runs the worker process of `mode` until SIGTERM/SIGINT (see runWorker). */
export function runActivityLogWorker(mode: string): Promise<void> {
  return runWorker(activityLogWorker(WORKER_MODES[mode]));
}
