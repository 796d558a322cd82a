import type { InjectionToken } from '@nestjs/common';
import type { Request } from 'express';
import type { KeyScope, StoredAnswer } from './idempotency-store';

/** What a stored-answer codec is told about the answer it seals or opens. */
export interface StoredAnswerContext {
  /** Whose key the answer is stored under (the same when it is opened for a repeat). */
  scope: KeyScope;
  /** The answer's status. */
  status: number;
  /** The request being answered: the first one when sealing, the repeat when opening. */
  request: Request;
}

/**
 * A route's way to keep parts of its answer out of the idempotency store in plain text
 * (`@Idempotent({ storedAnswer })`): `seal` turns the body of an answer (its text, a
 * stored failure's problem body included) into the text that is stored, before it is
 * stored; `open` turns the stored text back into the body `seal` was given, before a
 * repeat is answered with it. The answer sent to the first request is never passed
 * through it. `open` may throw (a ProblemException, for a clear 4xx) when the stored body
 * can no longer be opened: the repeat is answered with that failure, which is not stored.
 */
export interface StoredAnswerCodec {
  seal(body: string, context: StoredAnswerContext): string | Promise<string>;
  open(storedBody: string, context: StoredAnswerContext): string | Promise<string>;
}

/** The provider of a codec (an injectable class or a token), resolved from the app's injector. */
export type StoredAnswerCodecToken = InjectionToken<StoredAnswerCodec>;

/** A stored answer with its body sealed or opened by `codec` (unchanged without one). */
export async function throughCodec(
  codec: StoredAnswerCodec | undefined,
  step: 'seal' | 'open',
  answer: StoredAnswer,
  scope: KeyScope,
  request: Request,
): Promise<StoredAnswer> {
  if (!codec) return answer;
  return { ...answer, body: await codec[step](answer.body, { scope, status: answer.status, request }) };
}
