import { DeleteObjectCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { ByteRange, FileStorage, MissingObjectError } from './file-storage';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  partSizeBytes: number;
  queueSize: number;
}

/**
 * Objects in an S3 bucket, written with multipart upload (lib-storage): only a
 * completed upload creates the object; a failed one is aborted. Credentials come
 * from the standard AWS chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profile, role).
 */
export class S3FileStorage extends FileStorage {
  private readonly client: S3Client;

  constructor(private readonly opts: S3StorageOptions) {
    super();
    this.client = new S3Client({
      region: opts.region,
      endpoint: opts.endpoint,
      forcePathStyle: opts.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async write(key: string, source: Readable): Promise<void> {
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.opts.bucket, Key: key, Body: source },
      partSize: this.opts.partSizeBytes,
      queueSize: this.opts.queueSize,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      source.destroy();
      throw err;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const out = await this.client
      .send(
        new GetObjectCommand({
          Bucket: this.opts.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      )
      .catch((err: unknown) => {
        throw (err as { name?: string } | null)?.name === 'NoSuchKey' ? new MissingObjectError(key) : err;
      });
    if (!(out.Body instanceof Readable)) throw new Error('S3 answered without a body stream');
    return out.Body;
  }

  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }));
  }

  destroy(): void {
    this.client.destroy();
  }
}
