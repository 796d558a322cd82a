import { Module } from '@nestjs/common';
import { PlatformModule } from '@vault/platform/bootstrap';
import { DatabaseModule } from '@vault/platform/persistence';
import { ActivityLogPipelineModule } from '../features/activity-log-pipeline/activity-log-pipeline.module';
import { ActivityLogModule } from '../features/activity-log/activity-log.module';
import { ChangeFeedModule } from '../features/change-feed/change-feed.module';
import { CollaboratorsModule } from '../features/collaborators/collaborators.module';
import { RecordsEnv } from '../config/records.env';
import { FilesModule } from '../features/files/files.module';
import { OpenUploadsMetrics } from '../features/files/resumable/open-uploads.metrics';
import { MIGRATIONS } from '../migrations';
import { ENTITIES } from '../persistence/entities';
import { RecordsModule } from '../features/records/records.module';
import { SearchModule } from '../features/search/search.module';
import { VaultsModule } from '../features/vaults/vaults.module';
import { TrashModule } from '../features/trash/trash.module';
import { LegalHoldsModule } from '../features/legal-holds/legal-holds.module';
import { WebhooksModule } from '../features/webhooks/webhooks.module';
import { VaultEncryptionModule } from '../features/encryption/vault-encryption.module';

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
    TrashModule,
    LegalHoldsModule,
    SearchModule,
    VaultEncryptionModule,
  ],
  // The open tus uploads, on this process's /metrics.
  providers: [OpenUploadsMetrics],
})
export class AppModule {}
