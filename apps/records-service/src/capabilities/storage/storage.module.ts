import { Module } from '@nestjs/common';
import { loadEnv } from '@vault/platform/config';
import { PersistenceModule } from '../../persistence/persistence.module';
import { EncryptionModule } from '../encryption/encryption.module';
import { BlobEncryptionJob } from './blob-encryption.job';
import { FileBytesService } from './file-bytes.service';
import { FileStorage } from './file-storage';
import { FsFileStorage } from './fs-file-storage';
import { S3FileStorage } from './s3-file-storage';
import { FilesEnv } from './storage.env';

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

/** File bytes: the storage port with its adapters (filesystem, S3), encryption at rest and the removal queue. */
@Module({
  imports: [PersistenceModule, EncryptionModule],
  providers: [
    { provide: FilesEnv, useFactory: () => loadEnv(FilesEnv) },
    { provide: FileStorage, inject: [FilesEnv], useFactory: storageFromEnv },
    FileBytesService,
    BlobEncryptionJob,
  ],
  exports: [FileBytesService, BlobEncryptionJob],
})
export class StorageModule {}
