import { DynamicModule, Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform/config';
import { EventStreams } from '../../capabilities/events/event-streams';
import { EventsEnv } from '../../capabilities/events/events.env';
import { OutboxRelayService } from '../../capabilities/events/outbox-relay.service';
import { PersistenceModule } from '../../persistence/persistence.module';
import { ActivityLogEnv } from './activity-log.env';
import { ACTIVITY_LOG_ROLES, ActivityLogRoles, ActivityLogRunner } from './activity-log.runner';
import { ActivityLogStreams } from './activity-log.streams';
import { ActivityLogWriter } from './activity-log.writer';

/** Roles from ACTIVITY_LOG_RELAY / ACTIVITY_LOG_WRITER (`inline` runs it in this process). */
const rolesFromEnv = (env: ActivityLogEnv): ActivityLogRoles => ({
  relay: env.ACTIVITY_LOG_RELAY === 'inline',
  writer: env.ACTIVITY_LOG_WRITER === 'inline',
});

/**
 * The pipeline that fills the activity log: the outbox relay (events/) publishes
 * committed events to JetStream, the writer (a JetStream transport handler, no HTTP)
 * consumes them into log rows. Needs the NATS connection and the TypeORM data source
 * of the hosting module. `roles` overrides the env settings (the separate worker processes).
 */
@Module({})
export class ActivityLogPipelineModule {
  static forRoot(roles?: ActivityLogRoles): DynamicModule {
    return {
      module: ActivityLogPipelineModule,
      imports: [PersistenceModule],
      providers: [
        { provide: ActivityLogEnv, useFactory: () => loadEnv(ActivityLogEnv) },
        { provide: EventsEnv, useExisting: ActivityLogEnv },
        { provide: ActivityLogStreams, inject: [ActivityLogEnv], useFactory: (e: ActivityLogEnv) => new ActivityLogStreams(e) },
        { provide: EventStreams, useExisting: ActivityLogStreams },
        {
          provide: ACTIVITY_LOG_ROLES,
          inject: [ActivityLogEnv],
          useFactory: (e: ActivityLogEnv) => roles ?? rolesFromEnv(e),
        },
        OutboxRelayService,
        ActivityLogRunner,
      ],
      // The writer: a handler on the JetStream transport (see activity-log.transport.ts).
      controllers: [ActivityLogWriter],
      exports: [ActivityLogEnv, ActivityLogStreams, OutboxRelayService, ActivityLogRunner, ACTIVITY_LOG_ROLES],
    };
  }
}
