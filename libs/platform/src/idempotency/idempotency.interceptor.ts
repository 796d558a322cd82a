import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  Logger,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Principal } from '@vault/contracts';
import type { Request, Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';
import type { DataSource } from 'typeorm';
import {
  answerForTakenKey,
  attachIdempotentRequest,
  attachSettlement,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_REPLAYED_HEADER,
  idempotencyKeyInFlight,
  IdempotentReplay,
  IdempotentRequest,
  isStoredFailure,
  parseIdempotencyKey,
  REPLAYED_HEADERS,
  requestFingerprint,
} from './idempotency';
import {
  claimKey,
  completeKey,
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_WINDOW_HOURS,
  KeyScope,
  KeyStore,
  releaseKey,
  renewClaim,
  StoredAnswer,
} from './idempotency-store';
import { answerTagged, ETagged } from '../http/conditional-requests';
import { RequestTransaction, runInRequestTransaction } from './request-transaction';
import { StoredAnswerCodec, StoredAnswerCodecToken, throughCodec } from './stored-answer-codec';

export interface IdempotentOptions {
  /**
   * `body` (default): the fingerprint is the method, path and parsed body, known before
   * the handler runs. `settled-by-handler`: the handler reads its own body (multipart)
   * and calls settleIdempotencyFingerprint() before it changes anything.
   */
  fingerprint?: 'body' | 'settled-by-handler';
  /**
   * Seals parts of the stored answer (a secret it shows once) before it is stored and opens
   * them before a repeat is answered (StoredAnswerCodec): a provider of the app, by class or
   * token. Without it the answer is stored as it was sent.
   */
  storedAnswer?: StoredAnswerCodecToken;
}

const IDEMPOTENT = 'vault:idempotent';

/**
 * Test hook of the crash tests: with this variable set to `true` (and NODE_ENV=test) the
 * process kills itself right after an idempotent request committed, before answering.
 */
export const KILL_AFTER_IDEMPOTENT_COMMIT_ENV = 'VAULT_TEST_KILL_AFTER_IDEMPOTENT_COMMIT';

/** The answer a handler produced, as it will be sent (an ETagged one with its ETag, as the adapter sends it). */
function answerOf(req: Request, res: Response, handled: unknown): StoredAnswer {
  const value = handled instanceof ETagged ? answerTagged(req, res, handled) : handled;
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const v = res.getHeader(name);
    if (v !== undefined) headers[name] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  let body = '';
  if (value !== undefined && value !== null) {
    if (typeof value === 'object') {
      body = JSON.stringify(value);
      headers['content-type'] ??= 'application/json; charset=utf-8';
    } else {
      // what Express sends a text body with: text/html unless the handler named a type, and utf-8
      body = String(value);
      const type = headers['content-type'] ?? 'text/html';
      headers['content-type'] = /;\s*charset=/i.test(type) ? type : `${type}; charset=utf-8`;
    }
  }
  return { status: res.statusCode, headers, body };
}

/**
 * Idempotency-Key on a creating POST (docs/retries-and-concurrency.md): claims the
 * key of the caller before the handler, replays a completed answer, refuses a
 * different request under the key (422) or a repeat while the first runs (409), and
 * commits the answer in the same transaction as the handler's change.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly log = new Logger('Idempotency');

  constructor(
    private readonly reflector: Reflector,
    @InjectDataSource() private readonly ds: DataSource,
    private readonly moduleRef: ModuleRef,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const header = req.headers['idempotency-key'];
    const principal = (req as Request & { user?: Principal }).user;
    if (header === undefined || !principal) return next.handle();
    const key = parseIdempotencyKey(header);
    const opts = this.reflector.get<IdempotentOptions | undefined>(IDEMPOTENT, context.getHandler()) ?? {};
    const fingerprint = opts.fingerprint === 'settled-by-handler' ? null : requestFingerprint(req, req.body);
    const scope: KeyScope = { tenantId: principal.tenantId, caller: principal.openId, key };
    const codec = opts.storedAnswer === undefined ? undefined : this.moduleRef.get(opts.storedAnswer, { strict: false });
    return from(this.serve(req, http.getResponse<Response>(), scope, fingerprint, next, codec));
  }

  private async serve(
    req: Request,
    res: Response,
    scope: KeyScope,
    fingerprint: string | null,
    next: CallHandler,
    codec: StoredAnswerCodec | undefined,
  ): Promise<unknown> {
    const claim = await claimKey(this.ds, scope, fingerprint);
    if (claim.kind === 'existing') {
      const { row } = claim;
      const stored = answerForTakenKey(row, fingerprint);
      const repeat = await throughCodec(codec, 'open', stored, scope, req).then(
        (answer) => new IdempotentReplay(answer),
        (refusal: unknown) => (refusal instanceof Error ? refusal : new Error(String(refusal))),
      );
      if (fingerprint !== null) throw repeat;
      // the handler learns the fingerprint while reading the body; it replays or refuses then
      attachIdempotentRequest(req, new IdempotentRequest(null, { fingerprint: row.fingerprint, repeat }, undefined));
      return lastValueFrom(next.handle(), { defaultValue: undefined });
    }

    const { token } = claim;
    const tx = new RequestTransaction(this.ds, fingerprint !== null);
    const state = new IdempotentRequest(fingerprint, undefined, tx);
    attachIdempotentRequest(req, state);
    const stopLease = keepClaimAlive(this.ds, scope, token, this.log);
    try {
      const value = await runInRequestTransaction(tx, () => lastValueFrom(next.handle(), { defaultValue: undefined }));
      const answer = await throughCodec(codec, 'seal', answerOf(req, res, value), scope, req);
      await tx.commit(async (m) => {
        if (!(await completeKey(m, scope, token, state.fingerprint, answer))) throw idempotencyKeyInFlight();
      });
      if (process.env[KILL_AFTER_IDEMPOTENT_COMMIT_ENV] === 'true' && process.env['NODE_ENV'] === 'test') {
        process.kill(process.pid, 'SIGKILL');
        await new Promise(() => undefined);
      }
      return value;
    } catch (err) {
      await tx.rollback().catch((e: unknown) => this.log.warn(`rollback failed: ${String(e)}`));
      // the filter renders the failure and hands its answer here: stored or key released
      attachSettlement(req, async (answer) => {
        try {
          if (isStoredFailure(answer.status) && state.fingerprint !== null) {
            const stored = await throughCodec(codec, 'seal', answer, scope, req);
            if (await completeKey(this.ds, scope, token, state.fingerprint, stored)) return;
          }
          await releaseKey(this.ds, scope, token);
        } catch (e) {
          this.log.warn(`idempotency key left in flight until its lease ends: ${String(e)}`);
        }
      });
      throw err;
    } finally {
      stopLease();
    }
  }
}

/**
 * Renews the in-flight lease of a claimed key while its request runs (every third of
 * the lease); returns the function that stops it.
 */
export function keepClaimAlive(ds: KeyStore, scope: KeyScope, token: string, log: Logger): () => void {
  const lease = setInterval(() => {
    renewClaim(ds, scope, token).catch((err: unknown) => log.warn(`lease renewal failed: ${String(err)}`));
  }, IDEMPOTENCY_LEASE_MS / 3);
  lease.unref();
  return () => clearInterval(lease);
}

/**
 * The `Idempotency-Key` request header in the OpenAPI document; `sameRequest` names what
 * (besides method and path) a repeat must send again to be replayed: the body, for most routes.
 */
export function ApiIdempotencyKey(sameRequest = 'body'): MethodDecorator & ClassDecorator {
  return ApiHeader({
    name: IDEMPOTENCY_KEY_HEADER,
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x21-\\x7E]+$' },
    description:
      `Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): 1–${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters, ` +
      `unique per request of the caller. A repeat with the same key and the same ${sameRequest} within ${IDEMPOTENCY_WINDOW_HOURS} h ` +
      `is answered with the first answer and \`${IDEMPOTENCY_REPLAYED_HEADER}: true\`, without running again; ` +
      `the same key with another ${sameRequest} is 422 \`idempotency_key_reused\`, a repeat while the first still runs ` +
      '409 `idempotency_key_in_flight`. See docs/retries-and-concurrency.md.',
  });
}

/**
 * Marks a creating POST as idempotent: an `Idempotency-Key` header makes retries safe
 * (see IdempotencyInterceptor), and the header is described in the OpenAPI document.
 */
export function Idempotent(opts: IdempotentOptions = {}): MethodDecorator & ClassDecorator {
  return applyDecorators(SetMetadata(IDEMPOTENT, opts), UseInterceptors(IdempotencyInterceptor), ApiIdempotencyKey());
}
