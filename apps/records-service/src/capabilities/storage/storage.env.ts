import { BaseEnv, ToBoolean, ToInt, UrlSetting } from '@vault/platform/config';
import { IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateIf } from 'class-validator';

const FILE_STORAGE_KINDS = ['fs', 's3'] as const;
export type FileStorageKind = (typeof FILE_STORAGE_KINDS)[number];

/** Lower bound (and default) of FILE_UPLOAD_GRACE_SECONDS: one day, see below. */
const MIN_UPLOAD_GRACE_SECONDS = 86_400;

/** Settings of record file storage, validated at boot with the service's other variables. */
export class FilesEnv extends BaseEnv {
  /** `fs`: a local (or mounted) folder; `s3`: an S3-compatible bucket. */
  @IsIn(FILE_STORAGE_KINDS)
  FILE_STORAGE: FileStorageKind = 'fs';

  /** Folder of the filesystem adapter (objects/ and tmp/ inside). */
  @IsString()
  FILE_STORAGE_DIR = '.data/files';

  @ValidateIf((e: FilesEnv) => e.FILE_STORAGE === 's3')
  @IsString({ message: 'S3_BUCKET is required when FILE_STORAGE=s3' })
  S3_BUCKET?: string;

  /** Endpoint of an S3-compatible server (MinIO, Ceph...); AWS when unset. */
  @UrlSetting()
  @IsOptional()
  @IsString()
  S3_ENDPOINT?: string;

  @IsString()
  S3_REGION = 'us-east-1';

  @ToBoolean()
  @IsIn([true, false])
  S3_FORCE_PATH_STYLE = false;

  /** Part size of S3 multipart uploads, MiB (S3 needs at least 5). */
  @ToInt()
  @IsInt()
  @Min(5)
  @Max(512)
  S3_PART_SIZE_MB = 8;

  /** Parts of one upload in flight at once (memory per upload is about size x queue). */
  @ToInt()
  @IsInt()
  @Min(1)
  @Max(16)
  S3_QUEUE_SIZE = 2;

  /** How often due byte removals (deleted files, abandoned uploads) are carried out. */
  @ToInt()
  @IsInt()
  @Min(50)
  FILE_PURGE_INTERVAL_MS = 5000;

  /**
   * Time after which the bytes of an upload that never committed are removed. It must
   * outlast the slowest upload still streaming, or the purge takes its bytes mid-flight:
   * the gateway lets 5 GiB through (MAX_UPLOAD_BYTES) with no overall time limit, and
   * 5 GiB at 64 KiB/s (about 0.5 Mbit/s) takes nearly 23 hours, hence at least a day.
   */
  @ToInt()
  @IsInt()
  @Min(MIN_UPLOAD_GRACE_SECONDS)
  FILE_UPLOAD_GRACE_SECONDS = MIN_UPLOAD_GRACE_SECONDS;
}
