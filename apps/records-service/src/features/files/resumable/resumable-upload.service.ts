import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';
import { Server } from '@tus/server';
import { ERRORS, Upload } from '@tus/utils';
import {
  ERROR_CODES,
  FILE_ERROR_CODES,
  Principal,
} from '@vault/contracts';
import {
  codeForStatus,
  ProblemException,
  problemBody,
  requestIdOf,
} from '@vault/platform';
import type { Request, Response } from 'express';
import { routeRecordId, type VaultAccess } from '../../../capabilities/access/access.service';
import { RecordFileRepository } from '../../../persistence/record-files/record-file.repository';
import { ResumableUploadEntity } from '../../../persistence/resumable-uploads/resumable-upload.entity';
import { ResumableUploadRepository } from '../../../persistence/resumable-uploads/resumable-upload.repository';
import { Transactions, Tx } from '../../../persistence/transactions';
import { payloadTooLarge } from '../../../capabilities/plans/plans.errors';
import { QuotaService } from '../../../capabilities/plans/quota.service';
import {
  AppendProgress,
  FileBytesService,
} from '../../../capabilities/storage/file-bytes.service';
import { FileChanges } from '../file-changes';
import {
  checksumMismatch,
  chunkBeyondLength,
  chunkChecksumMismatch,
  fileNameTaken,
  uploadExceedsVaultStorage,
  uploadsFull,
} from '../files.errors';
import { UploadService } from '../upload/upload.service';
import { ResumableEnv } from './resumable.env';
import { PgUploadLocker } from './pg-upload-locker';
import { problemAnswers } from './tus-problems';
import { sendTusAnswer, tusRequest } from './tus-node';
import { TusStore } from './tus-store';
import { UploadHashes } from './upload-hashes';
import { parseTusMetadata, parseUploadChecksum } from './tus-metadata';

/** Response headers of the PATCH (or POST) that completed an upload: the record file it became. */
export const RECORD_FILE_ID_HEADER = 'Record-File-Id';
export const RECORD_FILE_URL_HEADER = 'Record-File-Url';

/** After an upload's expiry its bytes stay queued this much longer, in case the sweeper never ran. */
const PURGE_BACKSTOP_MS = 86_400_000;
const SWEEP_BATCH = 100;
/** Open uploads whose running SHA-256 one instance keeps in memory (a few hundred bytes each). */
const HASHED_UPLOADS = 10_000;

/** One tus request: what RoleGuard resolved and who asks. */
interface TusCall {
  access: VaultAccess;
  principal: Principal;
  req: Request;
  res: Response;
  /** Set once the answer is a refusal with a problem body. */
  problem?: boolean;
  /** The upload this request completed (its row is gone once committed). */
  finished?: Upload;
  /** The upload's row as this request read it under the upload's lock (tus reads, then writes). */
  row?: ResumableUploadEntity;
  /** Runs in the creation's transaction, after the row's insert (an Idempotency-Key's answer). */
  onCreate?: CreationHook;
}

/** Work committed with a new upload's row, or not at all. */
export type CreationHook = (tx: Tx, row: ResumableUploadEntity) => Promise<void>;

/**
 * Resumable uploads (tus 1.0: core, creation, creation-with-upload, checksum,
 * termination, expiration) over the same path as the multipart upload: creation runs
 * the admission rules (metadata, name, per-upload limit, vault quota, reserved while
 * open), each chunk appends through the storage port (FileBytesService) with its
 * checksum, and the last chunk runs UploadService.commit. The file's SHA-256 runs in
 * memory on the instance receiving the bytes (UploadHashes); an upload continued
 * elsewhere or after a restart is hashed from storage once complete. The protocol is
 * @tus/server's; this class is its data store.
 */
@Injectable()
export class ResumableUploadService implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(ResumableUploadService.name);
  private readonly calls = new AsyncLocalStorage<TusCall>();
  private readonly server: Server;
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<number>;
  private readonly locker: PgUploadLocker;
  private readonly hashes = new UploadHashes(HASHED_UPLOADS);

  constructor(
    private readonly tx: Transactions,
    private readonly uploads: ResumableUploadRepository,
    private readonly files: RecordFileRepository,
    private readonly changes: FileChanges,
    private readonly quota: QuotaService,
    private readonly bytes: FileBytesService,
    private readonly commits: UploadService,
    private readonly env: ResumableEnv,
  ) {
    this.locker = new PgUploadLocker({
      databaseUrl: env.DATABASE_URL,
      maxLocks: env.TUS_MAX_LOCKED_UPLOADS,
      acquireTimeoutMs: env.TUS_LOCK_TIMEOUT_MS,
      retryMs: 100,
      readWithLock: (id) => this.ownedStatement(id),
    });
    this.server = new Server({
      path: '/uploads',
      datastore: new TusStore(this),
      locker: this.locker,
      relativeLocation: true,
      generateUrl: (req, { id }) =>
        `${new URL(req.url).pathname.replace(/\/+$/, '')}/${id}`,
      getFileIdFromRequest: (_req, last) => last,
      namingFunction: () => randomUUID(),
      exposedHeaders: [RECORD_FILE_ID_HEADER, RECORD_FILE_URL_HEADER],
      onUploadFinish: (_req, upload) => this.finish(upload.id),
      onResponseError: (_req, err) => this.problem(err),
    });
  }

  onModuleInit(): void {
    this.timer = setInterval(
      () => void this.sweepExpired(),
      this.env.TUS_SWEEP_INTERVAL_MS,
    );
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
    await this.locker.close();
  }

  get expiryMs(): number {
    return this.env.TUS_UPLOAD_EXPIRY_SECONDS * 1000;
  }

  /** Serves one tus request (POST, HEAD, PATCH, DELETE) of the caller on the resolved record. */
  handle(
    access: VaultAccess,
    principal: Principal,
    req: Request,
    res: Response,
    onCreate?: CreationHook,
  ): Promise<void> {
    const call: TusCall = { access, principal, req, res, onCreate };
    problemAnswers(res, () => call.problem ?? false, requestIdOf(req));
    return this.calls.run(call, async () =>
      sendTusAnswer(res, await this.server.handleWeb(tusRequest(req, res))),
    );
  }

  /** Creation: every rule of the multipart upload before any byte, then the reservation. */
  async create(upload: Upload): Promise<Upload> {
    const { access, principal, onCreate } = this.call();
    const recordId = routeRecordId(access);
    const { metadata, sha256, mediaType } = parseTusMetadata(upload.metadata);
    const length = upload.size ?? 0;
    if (await this.files.nameTaken(recordId, metadata.fileName))
      throw fileNameTaken();
    const limits = await this.quota.uploadLimits(access.vault.id);
    if (length > limits.maxUploadBytes)
      throw payloadTooLarge(limits.maxUploadBytes);
    if (length > limits.quotaRemainingBytes) throw uploadExceedsVaultStorage();
    if (
      (await this.uploads.countOpenOf(principal.openId)) >=
      this.env.TUS_MAX_OPEN_UPLOADS
    ) {
      throw uploadsFull(this.env.TUS_MAX_OPEN_UPLOADS);
    }
    const createdAt = new Date();
    const expiresAt = new Date(createdAt.getTime() + this.expiryMs);
    const { storageKey, state } = await this.bytes.beginAppend(
      new Date(expiresAt.getTime() + PURGE_BACKSTOP_MS),
    );
    try {
      await this.tx.run(async (tx) => {
        const record = await this.changes.lock(tx, access);
        await this.quota
          .assertRoomForBytes(tx, access.vault.id, length)
          .catch((err: unknown) => {
            throw err instanceof ProblemException &&
              err.code === FILE_ERROR_CODES.storageQuotaExceeded
              ? uploadExceedsVaultStorage()
              : err;
          });
        const row: ResumableUploadEntity = {
          id: upload.id,
          recordId: record.id,
          tenantId: record.tenantId,
          ownerOpenId: principal.openId,
          storageKey,
          length,
          offset: 0,
          metadata: { ...metadata },
          mediaType,
          expectedSha256: sha256 ?? null,
          storeState: state,
          createdAt,
          expiresAt,
        };
        await this.uploads.insert(tx, row);
        await onCreate?.(tx, row);
      });
    } catch (err) {
      await this.bytes.discard(storageKey);
      throw err;
    }
    upload.creation_date = createdAt.toISOString();
    return upload;
  }

  /** HEAD: the caller's own upload on this record only (anyone else: 404). */
  async getUpload(id: string): Promise<Upload> {
    // a creation-with-upload that completed the file reads it back for its answer
    const finished = this.call().finished;
    if (finished?.id === id) return finished;
    const row = this.lockedRead(id) ?? (await this.owned(id));
    this.call().row = row;
    const metadata: Record<string, string> = Object.fromEntries(
      Object.entries(row.metadata).filter(([, v]) => typeof v === 'string') as [
        string,
        string,
      ][],
    );
    if (row.expectedSha256) metadata['sha256'] = row.expectedSha256;
    return new Upload({
      id,
      size: row.length,
      offset: row.offset,
      metadata,
      creation_date: row.createdAt.toISOString(),
    });
  }

  /**
   * PATCH: appends the chunk through the storage port; with Upload-Checksum the chunk
   * counts only when its digest matches (else 460, the offset unchanged). The new
   * offset is recorded only if nobody moved the upload meanwhile, and committed on the
   * lock's connection just before the lock is released (one round trip); the file's running
   * SHA-256 continues when this instance hashed every byte before the chunk.
   */
  async write(source: Readable, id: string, offset: number): Promise<number> {
    const call = this.call();
    const header = call.req.headers['upload-checksum'];
    const checksum = parseUploadChecksum(
      Array.isArray(header) ? header.join(',') : (header ?? null),
    );
    // PATCH read the row under the lock just before (getUpload); creation-with-upload did not
    const row = call.row?.id === id ? call.row : await this.owned(id);
    if (row.offset !== offset) throw ERRORS.INVALID_OFFSET;
    const at = progressOf(row);
    const whole = this.hashes.continueAt(id, offset);
    const chunk = await this.bytes.appendChunk(
      at,
      source,
      checksum?.algorithm,
      chunkBeyondLength,
      whole,
    );
    if (checksum && chunk.chunkDigest !== checksum.digest) {
      await this.bytes.releaseAppend(
        row.storageKey,
        chunk.next.state,
        at.state,
      );
      throw chunkChecksumMismatch();
    }
    const change = { offset: chunk.next.offset, storeState: chunk.next.state };
    // under the request's lock: the update commits and the lock goes in one round trip
    const affected = await this.locker.commitThenUnlock(
      id,
      this.uploads.advanceStatement(id, offset, change),
    );
    const recorded =
      affected === undefined
        ? await this.uploads.advance(id, offset, change)
        : affected === 1;
    if (!recorded) {
      await this.bytes.releaseAppend(
        row.storageKey,
        chunk.next.state,
        at.state,
      );
      throw ERRORS.INVALID_OFFSET;
    }
    if (whole) this.hashes.keep(id, whole, chunk.next.offset, row.expiresAt);
    await this.bytes.releaseAppend(row.storageKey, at.state, chunk.next.state);
    return chunk.next.offset;
  }

  /**
   * The last byte arrived: the object is completed in storage, its SHA-256 (the running
   * hash of this instance, or the object read back once when some bytes went through
   * another instance or an earlier process) compared with the `sha256` metadata, and
   * the record file committed exactly as a multipart upload's; the answer names it.
   * Any refusal removes the bytes and ends the upload.
   */
  async finish(id: string): Promise<{ headers: Record<string, string> }> {
    const call = this.call();
    const { access, principal } = call;
    const row = await this.owned(id);
    call.finished = new Upload({
      id,
      size: row.length,
      offset: row.length,
      creation_date: row.createdAt.toISOString(),
    });
    const at = progressOf(row);
    const hashed = this.hashes.take(id, row.length);
    let sha256: string;
    try {
      await this.bytes.finishAppend(at);
      sha256 = hashed
        ? hashed.digest('hex')
        : await this.bytes.sha256Of(row.storageKey);
      if (row.expectedSha256 !== null && row.expectedSha256 !== sha256)
        throw checksumMismatch('sha256 metadata');
    } catch (err) {
      await this.uploads.delete(id);
      await this.bytes.discard(row.storageKey);
      throw err;
    }
    try {
      const view = await this.commits.commit(
        access,
        principal,
        {
          metadata: row.metadata,
          stored: { storageKey: row.storageKey, size: row.length, sha256 },
          mediaType: row.mediaType,
        },
        undefined,
      );
      return {
        headers: {
          [RECORD_FILE_ID_HEADER]: view.id,
          [RECORD_FILE_URL_HEADER]: view.fileUrl,
        },
      };
    } finally {
      // committed or refused (the commit removed the bytes then): the upload is over either way
      await this.uploads.delete(id);
    }
  }

  /** DELETE (termination): the upload ends, its reservation with it, and its bytes are removed. */
  async terminate(id: string): Promise<void> {
    const row = await this.owned(id);
    this.hashes.drop(id);
    if (await this.uploads.delete(id)) await this.bytes.abandon(row.storageKey);
  }

  /** Ends every expired upload (any caller's): row deleted, reservation released, bytes removed. */
  sweepExpired(): Promise<number> {
    this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweep(): Promise<number> {
    let total = 0;
    // uploads expired here or swept by another instance
    this.hashes.dropExpired();
    try {
      for (;;) {
        const keys = await this.tx.run(async (tx) => {
          const expired = await this.uploads.lockExpired(tx, SWEEP_BATCH);
          for (const row of expired) {
            await this.uploads.delete(row.id, tx);
            this.hashes.drop(row.id);
          }
          return expired.map((r) => r.storageKey);
        });
        for (const key of keys) await this.bytes.abandon(key);
        total += keys.length;
        if (keys.length < SWEEP_BATCH) return total;
      }
    } catch (err) {
      this.log.warn(
        `removing expired uploads failed, retrying later: ${String(err)}`,
      );
      return total;
    }
  }

  private call(): TusCall {
    const call = this.calls.getStore();
    if (!call) throw new Error('a tus data store call outside a request');
    return call;
  }

  /**
   * The caller's upload read with its lock (HEAD, PATCH, DELETE: one round trip for both; a
   * creation has no row yet), or undefined when the lock read nothing for this request.
   */
  private lockedRead(id: string): ResumableUploadEntity | undefined {
    const read = this.locker.takeRead(id);
    if (read === undefined) return undefined;
    if (read === null) throw ERRORS.FILE_NOT_FOUND;
    return this.uploads.ownedFromRow(read);
  }

  /** The statement the upload's lock runs for `lockedRead` (none outside a request or for a creation). */
  private ownedStatement(id: string): string | undefined {
    const call = this.calls.getStore();
    if (!call || call.req.method === 'POST' || !UUID.test(id)) return undefined;
    return this.uploads.ownedStatement(id, routeRecordId(call.access), call.principal.openId);
  }

  private async owned(id: string): Promise<ResumableUploadEntity> {
    const { access, principal } = this.call();
    const row = UUID.test(id)
      ? await this.uploads.findOwned(id, routeRecordId(access), principal.openId)
      : undefined;
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    return row;
  }

  /** Every refusal as the platform's problem body (tus's own refusals included). */
  private problem(err: Error | { status_code: number; body: string }): {
    status_code: number;
    body: string;
  } {
    const call = this.calls.getStore();
    let status: number;
    let body;
    const requestId = call ? requestIdOf(call.req) : undefined;
    if (err instanceof ProblemException) {
      status = err.getStatus();
      body = problemBody(status, err.code, err.message, requestId, err.errors);
      for (const [name, value] of Object.entries(err.headers ?? {}))
        call?.res.setHeader(name, value);
    } else if (
      'status_code' in err &&
      typeof err.status_code === 'number' &&
      err.status_code < 500
    ) {
      status = err.status_code;
      body = problemBody(
        status,
        codeForStatus(status),
        err.body.trim(),
        requestId,
      );
    } else {
      this.log.error(
        `tus ${call?.req.method ?? ''} failed [${requestId ?? ''}]`,
        err instanceof Error ? err.stack : String(err),
      );
      status = 500;
      body = problemBody(
        status,
        ERROR_CODES.internal,
        'An unexpected error occurred.',
        requestId,
      );
    }
    if (call) call.problem = true;
    return { status_code: status, body: JSON.stringify(body) };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function progressOf(row: ResumableUploadEntity): AppendProgress {
  return {
    storageKey: row.storageKey,
    offset: row.offset,
    length: row.length,
    state: row.storeState,
  };
}
