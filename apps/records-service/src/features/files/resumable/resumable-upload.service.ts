import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Server } from '@tus/server';
import { ERRORS, Upload } from '@tus/utils';
import type { Principal } from '@vault/contracts';
import { requestIdOf } from '@vault/platform/http';
import type { Request, Response } from 'express';
import { routeRecordId, type VaultAccess } from '../../../capabilities/access/access.service';
import { AppendProgress, FileBytesService } from '../../../capabilities/storage/file-bytes.service';
import { ResumableUploadEntity } from '../../../persistence/resumable-uploads/resumable-upload.entity';
import { ResumableUploadRepository } from '../../../persistence/resumable-uploads/resumable-upload.repository';
import { Transactions } from '@vault/platform/persistence';
import { chunkBeyondLength, chunkChecksumMismatch, uploadBodyTooSlow, uploadWritesFull } from '../files.errors';
import { ExpiredUploads } from './expired-uploads';
import { PgUploadLocker } from './pg-upload-locker';
import { progressOf, RECORD_FILE_ID_HEADER, RECORD_FILE_URL_HEADER, ResumableCompletion } from './resumable-completion';
import { ResumableCreation } from './resumable-creation';
import { ResumableEnv } from './resumable.env';
import { CreationHook, TusCall, TusCalls } from './tus-calls';
import { parseUploadChecksum } from './tus-metadata';
import { sendTusAnswer, tusRequest } from './tus-node';
import { tusPrecondition } from './tus-preconditions';
import { problemAnswers, problemOf, sendRefusal } from './tus-problems';
import { TusStore } from './tus-store';
import { UploadHashes } from './upload-hashes';
import { UploadWriteSlots } from './upload-write-slots';

/** Open uploads whose running SHA-256 one instance keeps in memory (a few hundred bytes each). */
const HASHED_UPLOADS = 10_000;

/**
 * Resumable uploads (tus 1.0: core, creation, creation-with-upload, checksum,
 * termination, expiration) over the same path as the multipart upload. This class owns a
 * tus request from @tus/server's hooks to the commit; the protocol is @tus/server's, and
 * its data store (TusStore) and locker (PgUploadLocker) are adapters this class drives.
 * Creation runs the admission rules and reserves the upload (ResumableCreation), each
 * chunk appends through the storage port (FileBytesService) with its checksum, and the
 * last chunk commits the record file (ResumableCompletion, through UploadService.commit).
 * The file's SHA-256 runs in memory on the instance receiving the bytes (UploadHashes); an
 * upload continued elsewhere or after a restart is hashed from storage once complete.
 */
@Injectable()
export class ResumableUploadService implements OnModuleInit, OnModuleDestroy {
  private readonly log = new Logger(ResumableUploadService.name);
  private readonly calls = new TusCalls();
  private readonly server: Server;
  private readonly locker: PgUploadLocker;
  private readonly hashes = new UploadHashes(HASHED_UPLOADS);
  private readonly expired: ExpiredUploads;
  private readonly writes: UploadWriteSlots;

  constructor(
    tx: Transactions,
    private readonly uploads: ResumableUploadRepository,
    private readonly bytes: FileBytesService,
    private readonly creation: ResumableCreation,
    private readonly completion: ResumableCompletion,
    private readonly env: ResumableEnv,
  ) {
    this.expired = new ExpiredUploads(tx, uploads, bytes, this.hashes);
    this.locker = new PgUploadLocker({
      databaseUrl: env.DATABASE_URL,
      maxLocks: env.TUS_MAX_LOCKED_UPLOADS,
      sessions: env.TUS_LOCK_CONNECTIONS,
      connectTimeoutMs: env.TUS_LOCK_STATEMENT_TIMEOUT_MS,
      statementTimeoutMs: env.TUS_LOCK_STATEMENT_TIMEOUT_MS,
      acquireTimeoutMs: env.TUS_LOCK_TIMEOUT_MS,
      retryMs: 100,
      readWithLock: (id) => this.ownedStatement(id),
    });
    this.writes = new UploadWriteSlots({ caller: env.TUS_MAX_WRITES_PER_CALLER, tenant: env.TUS_MAX_WRITES_PER_TENANT });
    this.server = new Server({
      path: '/uploads',
      datastore: new TusStore(this),
      locker: this.locker,
      relativeLocation: true,
      generateUrl: (req, { id }) => `${new URL(req.url).pathname.replace(/\/+$/, '')}/${id}`,
      getFileIdFromRequest: (_req, last) => last,
      namingFunction: () => randomUUID(),
      exposedHeaders: [RECORD_FILE_ID_HEADER, RECORD_FILE_URL_HEADER],
      onUploadFinish: (_req, upload) => this.finish(upload.id),
      onResponseError: (_req, err) => problemOf(err, this.calls.active, this.log),
    });
  }

  onModuleInit(): void {
    this.expired.start(this.env.TUS_SWEEP_INTERVAL_MS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.expired.stop();
    await this.locker.close();
  }

  /** Uploads this instance holds locked now (a HEAD, PATCH or DELETE in progress each). */
  get locksHeld(): number {
    return this.locker.size;
  }

  get expiryMs(): number {
    return this.env.TUS_UPLOAD_EXPIRY_SECONDS * 1000;
  }

  /**
   * Serves one tus request (POST, HEAD, PATCH, DELETE) of the caller on the resolved record.
   * A chunk (PATCH) first takes a write slot of the caller and its tenant (429 beyond the
   * caps), and its body is held to the minimum rate: ended early, it is answered 408 with
   * the offset its bytes reached.
   */
  handle(access: VaultAccess, principal: Principal, req: Request, res: Response, onCreate?: CreationHook): Promise<void> {
    const refused = tusPrecondition(req) ?? this.takeWriteSlot(principal, req, res);
    if (refused) return Promise.resolve(sendRefusal(req, res, refused, this.log));
    const call: TusCall = { access, principal, req, res, onCreate };
    problemAnswers(res, () => call.problem ?? false, requestIdOf(req));
    const floor = {
      bytesPerSecond: this.env.TUS_MIN_BODY_BYTES_PER_SECOND,
      windowMs: this.env.TUS_BODY_RATE_GRACE_MS,
      tooSlow: () => (call.tooSlow = true),
    };
    return this.calls.run(call, async () => {
      const answer = await this.server.handleWeb(tusRequest(req, res, floor));
      const offset = answer.headers.get('Upload-Offset');
      if (!call.tooSlow || req.method !== 'PATCH' || answer.status !== 204 || offset === null) return sendTusAnswer(res, answer);
      call.problem = true;
      const { TUS_MIN_BODY_BYTES_PER_SECOND: rate, TUS_BODY_RATE_GRACE_MS: grace } = this.env;
      const slow = uploadBodyTooSlow(rate, grace / 1000, { 'Upload-Offset': offset, Connection: 'close' });
      sendRefusal(req, res, slow, this.log);
    });
  }

  /** A PATCH's slot among the chunks its caller and tenant send at once, freed with its answer; else the 429. */
  private takeWriteSlot(principal: Principal, req: Request, res: Response) {
    if (req.method !== 'PATCH') return undefined;
    const slot = this.writes.take(principal);
    if ('release' in slot) {
      res.once('close', slot.release);
      return undefined;
    }
    const {
      TUS_MAX_WRITES_PER_CALLER: caller,
      TUS_MAX_WRITES_PER_TENANT: tenant,
      TUS_WRITES_RETRY_AFTER_SECONDS: retry,
    } = this.env;
    return uploadWritesFull(slot.full === 'caller' ? caller : tenant, slot.full, retry);
  }

  /** Creation: every rule of the multipart upload before any byte, then the reservation. */
  async create(upload: Upload): Promise<Upload> {
    const { access, principal, onCreate } = this.calls.current();
    const createdAt = await this.creation.create(access, principal, upload, onCreate);
    upload.creation_date = createdAt.toISOString();
    return upload;
  }

  /** HEAD: the caller's own upload on this record only (anyone else: 404). */
  async getUpload(id: string): Promise<Upload> {
    const call = this.calls.current();
    // a creation-with-upload that completed the file reads it back for its answer
    if (call.finished?.id === id) return call.finished;
    const row = this.lockedRead(id) ?? (await this.owned(id));
    call.row = row;
    const metadata: Record<string, string> = Object.fromEntries(
      Object.entries(row.metadata).filter(([, v]) => typeof v === 'string') as [string, string][],
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
    const call = this.calls.current();
    const header = call.req.headers['upload-checksum'];
    const checksum = parseUploadChecksum(Array.isArray(header) ? header.join(',') : (header ?? null));
    // PATCH read the row under the lock just before (getUpload); creation-with-upload did not
    const row = call.row?.id === id ? call.row : await this.owned(id);
    if (row.offset !== offset) throw ERRORS.INVALID_OFFSET;
    const at = progressOf(row);
    const whole = this.hashes.continueAt(id, offset);
    const chunk = await this.bytes.appendChunk(at, source, checksum?.algorithm, chunkBeyondLength, whole);
    const next = chunk.next;
    if (checksum && chunk.chunkDigest !== checksum.digest) {
      await this.bytes.releaseAppend(row.storageKey, next.state, at.state);
      throw chunkChecksumMismatch();
    }
    if (!(await this.advance(id, offset, next))) {
      await this.bytes.releaseAppend(row.storageKey, next.state, at.state);
      throw ERRORS.INVALID_OFFSET;
    }
    if (whole) this.hashes.keep(id, whole, next.offset, row.expiresAt);
    await this.bytes.releaseAppend(row.storageKey, at.state, next.state);
    return next.offset;
  }

  /**
   * The last byte arrived: the object is completed in storage, its SHA-256 (the running
   * hash of this instance, or the object read back once when some bytes went through
   * another instance or an earlier process) compared with the `sha256` metadata, and
   * the record file committed exactly as a multipart upload's; the answer names it.
   * Any refusal removes the bytes and ends the upload.
   */
  async finish(id: string): Promise<{ headers: Record<string, string> }> {
    const call = this.calls.current();
    const row = await this.owned(id);
    call.finished = new Upload({
      id,
      size: row.length,
      offset: row.length,
      creation_date: row.createdAt.toISOString(),
    });
    const hashed = this.hashes.take(id, row.length);
    return {
      headers: await this.completion.complete(call.access, call.principal, row, hashed),
    };
  }

  /** DELETE (termination): the upload ends, its reservation with it, and its bytes are removed. */
  async terminate(id: string): Promise<void> {
    const row = await this.owned(id);
    this.hashes.drop(id);
    if (await this.uploads.delete(id)) await this.bytes.abandon(row.storageKey);
  }

  /** Ends every expired upload (any caller's): row deleted, reservation released, bytes removed. */
  sweepExpired(): Promise<number> {
    return this.expired.sweep();
  }

  /**
   * Records a chunk's new offset unless the upload moved meanwhile: under the request's
   * lock the update commits and the lock goes in one round trip, else on its own.
   */
  private async advance(id: string, from: number, next: AppendProgress): Promise<boolean> {
    const change = { offset: next.offset, storeState: next.state };
    const affected = await this.locker.commitThenUnlock(id, this.uploads.advanceStatement(id, from, change));
    return affected === undefined ? this.uploads.advance(id, from, change) : affected === 1;
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
    const call = this.calls.active;
    if (!call || call.req.method === 'POST' || !UUID.test(id)) return undefined;
    return this.uploads.ownedStatement(id, routeRecordId(call.access), call.principal.openId);
  }

  private async owned(id: string): Promise<ResumableUploadEntity> {
    const { access, principal } = this.calls.current();
    const row = UUID.test(id) ? await this.uploads.findOwned(id, routeRecordId(access), principal.openId) : undefined;
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    return row;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
