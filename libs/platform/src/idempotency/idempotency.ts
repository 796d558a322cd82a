import { createHash } from 'node:crypto';
import { COMMON_ERRORS } from '@vault/contracts';
import type { Request, Response } from 'express';
import { ProblemException } from '../errors/problem.exception';
import type { ProblemFilterHooks } from '../errors/problem.filter';
import { currentRequestTransaction, RequestTransaction } from './request-transaction';
import type { KeyRow, StoredAnswer } from './idempotency-store';

/** The request header (draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set on every answer that is a replay of a stored one. */
export const IDEMPOTENCY_REPLAYED_HEADER = 'Idempotency-Replayed';
/** A key is 1–255 visible ASCII characters (0x21–0x7E). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** Response headers kept with a stored answer and sent again on replays. */
export const REPLAYED_HEADERS = ['content-type', 'location', 'etag', 'last-modified', 'cache-control', 'retry-after'];

/** The key of a request; 400 when it is not 1–255 visible ASCII characters (or sent twice). */
export function parseIdempotencyKey(value: string | string[]): string {
  const field = IDEMPOTENCY_KEY_HEADER;
  if (Array.isArray(value) || !KEY_PATTERN.test(value.replace(/^"(.*)"$/, '$1'))) {
    throw ProblemException.badRequest(
      `The ${field} header must be one string of 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`,
      [{ field, message: `${field} must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters` }],
    );
  }
  // the draft writes the key as a structured-field string ("…"); a bare token means the same
  return value.replace(/^"(.*)"$/, '$1');
}

/** JSON with object keys sorted, so equal bodies have one text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as object)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** The fingerprint of a request: SHA-256 of its method, path with query, and payload. */
export function requestFingerprint(req: Pick<Request, 'method' | 'originalUrl'>, payload: unknown): string {
  return createHash('sha256')
    .update(`${req.method}\n${req.originalUrl}\n${canonicalJson(payload)}`)
    .digest('hex');
}

export const idempotencyKeyReused = () =>
  ProblemException.of(
    COMMON_ERRORS.idempotencyKeyReused,
    `This ${IDEMPOTENCY_KEY_HEADER} was used for a different request; send a new key for a new request.`,
  );

export const idempotencyKeyInFlight = () =>
  ProblemException.of(
    COMMON_ERRORS.idempotencyKeyInFlight,
    `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry once it has finished.`,
    { headers: { 'Retry-After': '1' } },
  );

/**
 * What answers a request whose key is already taken (claimKey answered `existing`): 422
 * idempotency_key_reused when it is not the request the key stands for (their fingerprints
 * differ), else 409 idempotency_key_in_flight while that request runs (or has no answer yet),
 * else the stored answer, to replay. A fingerprint not known yet (null: a route whose handler
 * settles it, settleIdempotencyFingerprint) is not compared: the request's never; the stored
 * one's unless `unsettledStored` is 'differs' (a route that never settles late takes a key
 * held by such a request as another request's).
 */
export function answerForTakenKey(
  row: KeyRow,
  fingerprint: string | null,
  { unsettledStored = 'not compared' }: { unsettledStored?: 'differs' | 'not compared' } = {},
): StoredAnswer {
  const comparable = fingerprint !== null && (row.fingerprint !== null || unsettledStored === 'differs');
  if (comparable && row.fingerprint !== fingerprint) throw idempotencyKeyReused();
  if (row.state === 'in_flight' || !row.answer) throw idempotencyKeyInFlight();
  return row.answer;
}

/** Thrown to answer with a stored answer instead of running the handler (sent by the problem filter: idempotencyProblemHooks). */
export class IdempotentReplay extends Error {
  constructor(readonly answer: StoredAnswer) {
    super('replay of a stored answer');
  }
}

/**
 * Sends a stored answer again, marked as a replay: its status, its stored headers exactly as
 * they were (no Content-Type of Express's own for an answer that had none, none rewritten)
 * and its body.
 */
export function sendReplay(res: Response, answer: StoredAnswer): void {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.setHeader(IDEMPOTENCY_REPLAYED_HEADER, 'true');
  res.end(answer.body);
}

/** The state of an idempotent request that routes reading their own body settle late. */
export class IdempotentRequest {
  constructor(
    /** The fingerprint, once known. */
    public fingerprint: string | null,
    /**
     * A completed answer under the same key (a repeat): its fingerprint decides between 422
     * and `repeat`, what answers the repeat (the IdempotentReplay of the stored answer, or the
     * refusal of a stored answer that could not be opened).
     */
    readonly completed: { fingerprint: string | null; repeat: Error } | undefined,
    readonly transaction: RequestTransaction | undefined,
  ) {}
}

const REQUEST = Symbol('vault:idempotent-request');
const SETTLE = Symbol('vault:idempotency-settle');

export function attachIdempotentRequest(req: Request, state: IdempotentRequest): void {
  (req as Request & { [REQUEST]?: IdempotentRequest })[REQUEST] = state;
}

/**
 * For routes marked `@Idempotent({ fingerprint: 'settled-by-handler' })` (multipart
 * uploads): the handler calls this once it knows what identifies its request (the
 * metadata and the SHA-256 of the file it streamed), before it changes anything. A
 * repeat of a completed request is answered with the stored answer from here (thrown),
 * a different request under the same key is a 422; otherwise the handler's
 * transactions join the request's transaction from now on. No-op without a key.
 */
export function settleIdempotencyFingerprint(req: Request, payload: unknown): void {
  const state = (req as Request & { [REQUEST]?: IdempotentRequest })[REQUEST];
  if (!state) return;
  const fingerprint = requestFingerprint(req, payload);
  if (state.completed) {
    if (state.completed.fingerprint !== fingerprint) throw idempotencyKeyReused();
    throw state.completed.repeat;
  }
  state.fingerprint = fingerprint;
  const tx = state.transaction ?? currentRequestTransaction();
  if (tx) tx.joining = true;
}

/**
 * True when the request repeats a completed one under its key and its handler settles
 * the fingerprint late: checks that only the first request can pass (a name it took
 * itself) wait until settleIdempotencyFingerprint() has decided replay or 422.
 */
export function isIdempotentRepeat(req: Request): boolean {
  return (req as Request & { [REQUEST]?: IdempotentRequest })[REQUEST]?.completed !== undefined;
}

/** What the problem filter hands over when an idempotent request fails: the answer it sends. */
export type IdempotencySettlement = (answer: StoredAnswer) => Promise<void>;

export function attachSettlement(req: Request, settle: IdempotencySettlement): void {
  (req as Request & { [SETTLE]?: IdempotencySettlement })[SETTLE] = settle;
}

/** The settlement of a failed idempotent request (stores or releases its key), if any. */
export function settlementOf(req: Request): IdempotencySettlement | undefined {
  return (req as Request & { [SETTLE]?: IdempotencySettlement })[SETTLE];
}

/**
 * Which failures are stored and replayed: client errors that say something final
 * about the request (400, 403, 404, 409, 413, 415, 422…). Not stored (the key is
 * released and a retry runs again): 5xx, and the 4xx that invite a retry of the same
 * request (408 timeout, 425 too early, 429 too many requests).
 */
export function isStoredFailure(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 425 && status !== 429;
}

/**
 * What idempotency adds to the problem filter: a thrown IdempotentReplay is answered with
 * its stored answer, and a failed idempotent request's key is stored with the problem
 * answer (or released) before that answer is sent.
 */
export const idempotencyProblemHooks: ProblemFilterHooks = {
  answers(exception, _req, res) {
    if (!(exception instanceof IdempotentReplay)) return false;
    sendReplay(res, exception.answer);
    return true;
  },
  beforeSend: (req, answer) => settlementOf(req)?.(answer),
};
