import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { AppendState, ByteRange, FileStorage, ListedKey, MissingObjectError } from './file-storage';

/**
 * An append in progress: the S3 multipart upload of the key, the parts recorded so far
 * and the bytes after the last whole part (fewer than a part; S3 wants every part but
 * the last to be at least 5 MiB), kept in a small object of their own until the next
 * chunk completes a part.
 */
interface S3AppendState {
  uploadId: string;
  parts: { n: number; etag: string }[];
  tail?: { key: string; size: number };
}

/** Objects beside the key while an append runs: `<key>.upload` (the multipart upload id), `<key>.tail.<offset>`. */
const SIDE = '.';

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

  /**
   * Deletes the object and whatever an unfinished append left beside it: its multipart
   * upload is aborted (the id is in `<key>.upload`) and its tail objects deleted.
   */
  async remove(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: key }));
    const listed = await this.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: `${key}${SIDE}` }));
    const side = (listed.Contents ?? []).map((o) => o.Key ?? '').filter((k) => k !== '');
    const marker = side.find((k) => k === `${key}${SIDE}upload`);
    if (marker) await this.abortMultipart(key, (await this.readAll(marker)).toString('utf8'));
    // the marker last: if anything fails before, the next removal finds it again
    for (const k of side.filter((k) => k !== marker).concat(marker ?? [])) {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: k }));
    }
  }

  /** Starts the S3 multipart upload of the key and notes its id beside it (for `remove`). */
  async *list(): AsyncIterable<ListedKey> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const name = o.Key ?? '';
        const side = name.indexOf(SIDE);
        yield side < 0 ? { key: name, complete: true } : { key: name.slice(0, side), complete: false };
      }
      token = page.NextContinuationToken;
    } while (token);
  }

  async beginAppend(key: string): Promise<AppendState> {
    const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.opts.bucket, Key: key }));
    if (!created.UploadId) throw new Error('S3 answered CreateMultipartUpload without an UploadId');
    await this.client.send(
      new PutObjectCommand({ Bucket: this.opts.bucket, Key: `${key}${SIDE}upload`, Body: created.UploadId }),
    );
    const state: S3AppendState = { uploadId: created.UploadId, parts: [] };
    return { ...state };
  }

  /**
   * Sends the chunk as parts of the multipart upload, each part as soon as it is whole
   * (the previous tail first); at the end of the upload the rest is the last part,
   * otherwise it becomes the new tail object. At most one part is in memory.
   */
  async append(key: string, appendState: AppendState, offset: number, length: number, source: Readable): Promise<AppendState> {
    const state = appendState as unknown as S3AppendState;
    const parts = [...state.parts];
    // a tail object may be longer than recorded (a refused chunk wrote it again): its recorded size counts
    let pending: Buffer[] = state.tail ? [await this.readAll(state.tail.key, state.tail.size)] : [];
    let pendingSize = state.tail?.size ?? 0;
    let end = offset;
    const sendPart = async (body: Buffer) => {
      const n = parts.length + 1;
      const out = await this.client.send(
        new UploadPartCommand({ Bucket: this.opts.bucket, Key: key, UploadId: state.uploadId, PartNumber: n, Body: body }),
      );
      parts.push({ n, etag: out.ETag ?? '' });
    };
    for await (const chunk of source as AsyncIterable<Buffer>) {
      pending.push(chunk);
      pendingSize += chunk.length;
      end += chunk.length;
      while (pendingSize >= this.opts.partSizeBytes) {
        const all = Buffer.concat(pending);
        await sendPart(all.subarray(0, this.opts.partSizeBytes));
        const rest = all.subarray(this.opts.partSizeBytes);
        pending = rest.length > 0 ? [rest] : [];
        pendingSize = rest.length;
      }
    }
    const rest = Buffer.concat(pending);
    let tail: S3AppendState['tail'];
    if (end >= length) {
      if (rest.length > 0 || parts.length === 0) await sendPart(rest);
    } else if (rest.length > 0) {
      tail = { key: `${key}${SIDE}tail${SIDE}${end - rest.length}`, size: rest.length };
      if (tail.key !== state.tail?.key || tail.size !== state.tail.size) {
        // same start as the recorded tail: this one begins with its bytes, so the recorded state stays valid
        await this.client.send(new PutObjectCommand({ Bucket: this.opts.bucket, Key: tail.key, Body: rest }));
      }
    }
    const next: S3AppendState = { uploadId: state.uploadId, parts, ...(tail ? { tail } : {}) };
    return { ...next };
  }

  /** Deletes the tail object of `state` unless `kept` still uses it. */
  async releaseAppend(_key: string, appendState: AppendState, kept: AppendState): Promise<void> {
    const tail = (appendState as unknown as S3AppendState).tail;
    if (tail && tail.key !== (kept as unknown as S3AppendState).tail?.key) {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: tail.key }));
    }
  }

  /** Completes the multipart upload (the object appears whole) and drops the marker. */
  async finishAppend(key: string, appendState: AppendState): Promise<void> {
    const state = appendState as unknown as S3AppendState;
    let parts = state.parts;
    if (parts.length === 0) {
      // an empty file: S3 completes no upload without a part
      const out = await this.client.send(
        new UploadPartCommand({
          Bucket: this.opts.bucket,
          Key: key,
          UploadId: state.uploadId,
          PartNumber: 1,
          Body: Buffer.alloc(0),
        }),
      );
      parts = [{ n: 1, etag: out.ETag ?? '' }];
    }
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.opts.bucket,
        Key: key,
        UploadId: state.uploadId,
        MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.n, ETag: p.etag })) },
      }),
    );
    if (state.tail) await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: state.tail.key }));
    await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key: `${key}${SIDE}upload` }));
  }

  private async abortMultipart(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.opts.bucket, Key: key, UploadId: uploadId }));
    } catch (err) {
      // already completed or aborted: nothing left to abort
      if ((err as { name?: string } | null)?.name !== 'NoSuchUpload' && !abortUnsupported(err)) throw err;
    }
  }

  private async readAll(key: string, size?: number): Promise<Buffer> {
    const body = await this.read(key, size === undefined ? undefined : { start: 0, end: size - 1 });
    const chunks: Buffer[] = [];
    for await (const c of body as AsyncIterable<Buffer>) chunks.push(c);
    return Buffer.concat(chunks);
  }

  destroy(): void {
    this.client.destroy();
  }
}

/**
 * S3-compatible servers without AbortMultipartUpload answer 405 or 501; their parts
 * go with the bucket's lifecycle rule for incomplete multipart uploads (docs/files.md).
 */
function abortUnsupported(err: unknown): boolean {
  const status = (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return status === 405 || status === 501;
}
