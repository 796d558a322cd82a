import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '@vault/contracts';
import {
  answerForTakenKey,
  claimKey,
  completeKey,
  idempotencyKeyInFlight,
  isStoredFailure,
  keepClaimAlive,
  KeyScope,
  parseIdempotencyKey,
  releaseKey,
  requestFingerprint,
  sendReplay,
  StoredAnswer,
} from '@vault/platform/idempotency';
import type { Request, Response } from 'express';
import { routeRecordId, type VaultAccess } from '../../../capabilities/access/access.service';
import type { ResumableUploadEntity } from '../../../persistence/resumable-uploads/resumable-upload.entity';
import { ResumableUploadRepository } from '../../../persistence/resumable-uploads/resumable-upload.repository';
import { Transactions } from '@vault/platform/persistence';
import { holdAnswer } from './held-answer';
import { ResumableUploadService } from './resumable-upload.service';
import type { CreationHook } from './tus-calls';

/** The request headers that say what a tus creation creates (with its method and path). */
export const CREATION_HEADERS = ['Upload-Length', 'Upload-Metadata', 'Upload-Defer-Length', 'Upload-Concat'];

/** One creation under a claimed key. */
interface ClaimedCreation {
  scope: KeyScope;
  token: string;
  fingerprint: string;
  /** The upload it created (committed with the key's answer) and that answer. */
  created?: { id: string; answer: StoredAnswer };
}

/**
 * Idempotency-Key on the tus creation (docs/retries-and-concurrency.md, Resumable uploads).
 * The key is the caller's, like on every creating POST, and the request it stands for is
 * the method, the path and the creation headers (CREATION_HEADERS), not the bytes a
 * creation-with-upload carries. The creation's answer is stored in the transaction that
 * inserts the upload's row (so a crash after it still replays), then replaced by the answer
 * tus sends once it is known. A repeat answers the stored answer with the upload's current
 * offset in Upload-Offset while it is open, and appends none of its own bytes.
 */
@Injectable()
export class ResumableCreationKeys {
  private readonly log = new Logger('Idempotency');

  constructor(
    private readonly resumable: ResumableUploadService,
    private readonly uploads: ResumableUploadRepository,
    private readonly tx: Transactions,
  ) {}

  async create(access: VaultAccess, principal: Principal, req: Request, res: Response): Promise<void> {
    const header = req.headers['idempotency-key'];
    if (header === undefined) return this.resumable.handle(access, principal, req, res);
    const scope: KeyScope = {
      tenantId: principal.tenantId,
      caller: principal.openId,
      key: parseIdempotencyKey(header),
    };
    const fingerprint = requestFingerprint(
      req,
      Object.fromEntries(CREATION_HEADERS.map((name) => [name, req.headers[name.toLowerCase()]])),
    );
    const claim = await claimKey(this.tx.none, scope, fingerprint);
    if (claim.kind === 'existing') {
      // a key held by a request whose fingerprint is not known yet (a multipart upload) is another request's
      const stored = answerForTakenKey(claim.row, fingerprint, {
        unsettledStored: 'differs',
      });
      return sendReplay(res, await this.current(access, principal, stored));
    }
    return this.createUnderKey(access, principal, req, res, {
      scope,
      token: claim.token,
      fingerprint,
    });
  }

  /** A creation whose key this request claimed: the key's answer is stored with the upload's row, then settled. */
  private async createUnderKey(
    access: VaultAccess,
    principal: Principal,
    req: Request,
    res: Response,
    creation: ClaimedCreation,
  ): Promise<void> {
    const stopLease = keepClaimAlive(this.tx.none, creation.scope, creation.token, this.log);
    const settle = (answer: StoredAnswer | undefined) =>
      this.settle(access, principal, creation, answer)
        .catch((err: unknown) => this.log.warn(`idempotency key left in flight until its lease ends: ${String(err)}`))
        .finally(stopLease);
    const held = holdAnswer(res, settle);
    let failed = false;
    try {
      await this.resumable.handle(access, principal, req, res, storeAnswerOnCreate(req, creation));
    } catch (err) {
      // the problem filter answers it, through the held response
      failed = true;
      throw err;
    } finally {
      // no answer at all: the client went away before tus could answer
      if (!failed && !held.ended) await settle(undefined);
    }
  }

  /**
   * What the key keeps once the creation's request ends: tus's answer when it succeeded;
   * the creation's 201 when the upload it created is still open (bytes sent with it failed
   * or were cut: a retry continues that upload); a final refusal (isStoredFailure) as it
   * was; otherwise nothing, the key is released and a retry runs again.
   */
  private async settle(
    access: VaultAccess,
    principal: Principal,
    c: ClaimedCreation,
    answer: StoredAnswer | undefined,
  ): Promise<void> {
    const open = c.created !== undefined && (await this.openUpload(access, principal, c.created.id)) !== undefined;
    let kept: StoredAnswer | undefined;
    if (answer && answer.status < 300) kept = answer;
    else if (open) kept = c.created?.answer;
    else if (answer && isStoredFailure(answer.status)) kept = answer;
    if (!kept) return releaseKey(this.tx.none, c.scope, c.token);
    await completeKey(this.tx.none, c.scope, c.token, c.fingerprint, kept);
  }

  /** A stored answer for a repeat: a 201 names the upload's current offset while it is open. */
  private async current(access: VaultAccess, principal: Principal, answer: StoredAnswer): Promise<StoredAnswer> {
    const id = answer.status === 201 ? answer.headers['location']?.split('/').pop() : undefined;
    const row = id ? await this.openUpload(access, principal, id) : undefined;
    if (!row) return answer;
    return {
      ...answer,
      headers: { ...answer.headers, 'upload-offset': String(row.offset) },
    };
  }

  private openUpload(access: VaultAccess, principal: Principal, id: string): Promise<ResumableUploadEntity | undefined> {
    return this.uploads.findOwned(id, routeRecordId(access), principal.openId);
  }
}

/** The answer tus gives a creation without bytes (its PostHandler), known once the row is in. */
function creationAnswer(req: Request, row: ResumableUploadEntity): StoredAnswer {
  const path = new URL(req.originalUrl, 'http://localhost').pathname;
  return {
    status: 201,
    headers: {
      location: `${path.replace(/\/+$/, '')}/${row.id}`,
      'upload-expires': row.expiresAt.toUTCString(),
      'tus-resumable': '1.0.0',
    },
    body: '',
  };
}

/**
 * Stores the creation's answer under its key in the transaction that inserts the upload's
 * row, keeping the claim (the request may still replace the answer with tus's own).
 */
function storeAnswerOnCreate(req: Request, creation: ClaimedCreation): CreationHook {
  return async (tx, row) => {
    const answer = creationAnswer(req, row);
    const { scope, token, fingerprint } = creation;
    const stored = await completeKey(tx, scope, token, fingerprint, answer, { keepClaim: true });
    if (!stored) throw idempotencyKeyInFlight();
    creation.created = { id: row.id, answer };
  };
}
