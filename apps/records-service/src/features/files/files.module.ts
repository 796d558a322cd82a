import { Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform/config';
import { AccessModule } from '../../capabilities/access/access.module';
import { CatalogueModule } from '../../capabilities/catalogue/catalogue.module';
import { EventsModule } from '../../capabilities/events/events.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { PlansModule } from '../../capabilities/plans/plans.module';
import { RetentionModule } from '../../capabilities/retention/retention.module';
import { StorageModule } from '../../capabilities/storage/storage.module';
import { FileChanges } from './file-changes';
import { FilesController } from './files.controller';
import { FilesService } from './files.service';
import { ResumableCompletion } from './resumable/resumable-completion';
import { ResumableCreation } from './resumable/resumable-creation';
import { ResumableCreationKeys } from './resumable/resumable-creation-keys';
import { ResumableUploadService } from './resumable/resumable-upload.service';
import { ResumableUploadsController, TusDiscoveryController } from './resumable/resumable-uploads.controller';
import { ResumableEnv } from './resumable/resumable.env';
import { TusDiscoveryService } from './resumable/tus-discovery.service';
import { UploadService } from './upload/upload.service';
import { StorageUsageController } from './versions/storage-usage.controller';
import { FileVersionsController } from './versions/file-versions.controller';
import { FileVersionsService } from './versions/file-versions.service';
import { VersionWriter } from './versions/version-writer';

/** Record files: streaming upload and download, metadata, quotas. */
@Module({
  imports: [AccessModule, CatalogueModule, EventsModule, PersistenceModule, PlansModule, RetentionModule, StorageModule],
  controllers: [
    FilesController,
    FileVersionsController,
    StorageUsageController,
    ResumableUploadsController,
    TusDiscoveryController,
  ],
  providers: [
    FileChanges,
    FilesService,
    UploadService,
    VersionWriter,
    FileVersionsService,
    ResumableCreation,
    ResumableCompletion,
    ResumableUploadService,
    ResumableCreationKeys,
    TusDiscoveryService,
    { provide: ResumableEnv, useFactory: () => loadEnv(ResumableEnv) },
  ],
})
export class FilesModule {}
