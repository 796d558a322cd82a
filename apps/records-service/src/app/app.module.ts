import { Module } from '@nestjs/common';
import { DatabaseModule, PlatformModule } from '@vault/platform';
import { ActivityLogPipelineModule } from '../activity-log-pipeline/activity-log-pipeline.module';
import { ActivityLogModule } from '../activity-log/activity-log.module';
import { ChangeFeedModule } from '../change-feed/change-feed.module';
import { CollaboratorsModule } from '../collaborators/collaborators.module';
import { RecordsEnv } from '../config/records.env';
import { FilesModule } from '../files/files.module';
import { MIGRATIONS } from '../migrations';
import { ENTITIES } from '../persistence/entities';
import { RecordsModule } from '../records/records.module';
import { VaultsModule } from '../vaults/vaults.module';
import { WebhooksModule } from '../webhooks/webhooks.module';

@Module({
  imports: [
    PlatformModule.forRoot({ name: 'records-service', env: RecordsEnv, kind: 'service' }),
    DatabaseModule.forRoot({ entities: ENTITIES, migrations: MIGRATIONS }),
    VaultsModule,
    RecordsModule,
    FilesModule,
    CollaboratorsModule,
    ActivityLogModule,
    ActivityLogPipelineModule.forRoot(),
    WebhooksModule,
    ChangeFeedModule,
  ],
})
export class AppModule {}
