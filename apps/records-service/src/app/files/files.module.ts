import { Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform';
import { AccessModule } from '../access/access.module';
import { CatalogueModule } from '../catalogue/catalogue.module';
import { EventsModule } from '../events/events.module';
import { PlansModule } from '../plans/plans.module';
import { FileBytesService } from './file-bytes.service';
import { FilesController } from './files.controller';
import { FilesEnv } from './files.env';
import { FilesService } from './files.service';
import { FileStorage } from './storage/file-storage';
import { FsFileStorage } from './storage/fs-file-storage';
import { S3FileStorage } from './storage/s3-file-storage';
import { UploadInterceptor } from './upload/upload.interceptor';

const MiB = 1024 * 1024;

/** The storage adapter FILE_STORAGE names. */
export function storageFromEnv(env: FilesEnv): FileStorage {
  if (env.FILE_STORAGE === 'fs') return new FsFileStorage(env.FILE_STORAGE_DIR);
  return new S3FileStorage({
    bucket: env.S3_BUCKET ?? '',
    region: env.S3_REGION,
    endpoint: env.S3_ENDPOINT,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
    partSizeBytes: env.S3_PART_SIZE_MB * MiB,
    queueSize: env.S3_QUEUE_SIZE,
  });
}

/** Record files: streaming upload and download, metadata, storage adapters, quotas. */
@Module({
  imports: [AccessModule, CatalogueModule, EventsModule, PlansModule],
  controllers: [FilesController],
  providers: [
    { provide: FilesEnv, useFactory: () => loadEnv(FilesEnv) },
    { provide: FileStorage, inject: [FilesEnv], useFactory: storageFromEnv },
    FileBytesService,
    FilesService,
    UploadInterceptor,
  ],
  exports: [FilesService],
})
export class FilesModule {}
