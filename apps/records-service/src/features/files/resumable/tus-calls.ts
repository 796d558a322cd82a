import { AsyncLocalStorage } from 'node:async_hooks';
import type { Upload } from '@tus/utils';
import type { Principal } from '@vault/contracts';
import type { Request, Response } from 'express';
import type { VaultAccess } from '../../../capabilities/access/access.service';
import type { ResumableUploadEntity } from '../../../persistence/resumable-uploads/resumable-upload.entity';
import type { Tx } from '@vault/platform/persistence';

/** Work committed with a new upload's row, or not at all. */
export type CreationHook = (tx: Tx, row: ResumableUploadEntity) => Promise<void>;

/** One tus request: what RoleGuard resolved and who asks, and what the request learnt so far. */
export interface TusCall {
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
  /** Set when the chunk's body came slower than the minimum rate and was ended early (408). */
  tooSlow?: boolean;
}

/**
 * The tus request being served, across @tus/server's calls into the store and the locker
 * (they carry no request of ours): set by ResumableUploadService.handle for the request's
 * whole async run.
 */
export class TusCalls {
  private readonly calls = new AsyncLocalStorage<TusCall>();

  run<T>(call: TusCall, fn: () => Promise<T>): Promise<T> {
    return this.calls.run(call, fn);
  }

  /** The request being served, if any (the expiry sweep, for one, runs outside a request). */
  get active(): TusCall | undefined {
    return this.calls.getStore();
  }

  /** The request being served; a store call outside a request is a bug. */
  current(): TusCall {
    const call = this.calls.getStore();
    if (!call) throw new Error('a tus data store call outside a request');
    return call;
  }
}
