import { DynamicModule, Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform';
import { ActivityLogEnv } from './activity-log.env';
import { ActivityLogRelay } from './activity-log.relay';
import { ACTIVITY_LOG_ROLES, ActivityLogRoles, ActivityLogRunner } from './activity-log.runner';
import { ActivityLogStreams } from './activity-log.streams';
import { ActivityLogWriter } from './activity-log.writer';

/** Roles from ACTIVITY_LOG_RELAY / ACTIVITY_LOG_WRITER (`inline` runs it in this process). */
export const rolesFromEnv = (env: ActivityLogEnv): ActivityLogRoles => ({
  relay: env.ACTIVITY_LOG_RELAY === 'inline',
  writer: env.ACTIVITY_LOG_WRITER === 'inline',
});

/**
 * Outbox relay and activity-log writer (no HTTP). Needs the NATS connection and
 * the TypeORM data source of the hosting module. `roles` overrides the env
 * settings (the separate worker processes).
 */
@Module({})
export class ActivityLogPipelineModule {
  static forRoot(roles?: ActivityLogRoles): DynamicModule {
    return {
      module: ActivityLogPipelineModule,
      providers: [
        { provide: ActivityLogEnv, useFactory: () => loadEnv(ActivityLogEnv) },
        { provide: ActivityLogStreams, inject: [ActivityLogEnv], useFactory: (e: ActivityLogEnv) => new ActivityLogStreams(e) },
        {
          provide: ACTIVITY_LOG_ROLES,
          inject: [ActivityLogEnv],
          useFactory: (e: ActivityLogEnv) => roles ?? rolesFromEnv(e),
        },
        ActivityLogRelay,
        ActivityLogWriter,
        ActivityLogRunner,
      ],
      exports: [ActivityLogEnv, ActivityLogStreams, ActivityLogRelay, ActivityLogWriter, ActivityLogRunner],
    };
  }
}
