import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
// s3rver ships no types
const S3rver = require('s3rver') as new (opts: object) => S3rverInstance;

const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** The bucket the server holds and the service is given. */
export const LOOPBACK_S3_BUCKET = 'record-files';

/**
 * The loopback S3 server (s3rver) of the S3 storage suites (records-service's own and the
 * platform e2e run on S3), with a client and records-service's settings for it. Imported as
 * `@vault/platform/testing/s3`, apart from the other helpers: only S3 suites load s3rver.
 */
export class LoopbackS3 {
  private constructor(
    private readonly server: S3rverInstance,
    private readonly dir: string,
    readonly endpoint: string,
    readonly client: S3Client,
  ) {}

  static async start(): Promise<LoopbackS3> {
    const dir = mkdtempSync(join(tmpdir(), 's3rver-'));
    const server = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: LOOPBACK_S3_BUCKET }],
    });
    const { port } = await server.run();
    const endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: CREDENTIALS });
    return new LoopbackS3(server, dir, endpoint, client);
  }

  /** records-service settings for this server (5 MiB parts, a fast purge). */
  env(): Record<string, string> {
    return {
      FILE_STORAGE: 's3',
      S3_BUCKET: LOOPBACK_S3_BUCKET,
      S3_ENDPOINT: this.endpoint,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PART_SIZE_MB: '5',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      FILE_PURGE_INTERVAL_MS: '100',
    };
  }

  async stop(): Promise<void> {
    this.client.destroy();
    await this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
