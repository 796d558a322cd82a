import { Injectable, Logger } from '@nestjs/common';
import type { KeyScope, StoredAnswerCodec, StoredAnswerContext } from '@vault/platform/idempotency';
import { storedSecretUnavailable } from '../webhooks.errors';
import { SecretUnreadableError } from './secret-box';
import { WebhookSecrets } from './webhook-secrets';

/** An answer that shows a signing secret: a subscription (`id`) with its `secret`. */
type SecretAnswer = Record<string, unknown> & { id: string; secret: string };

/**
 * The signing secret in answers kept for Idempotency-Key replays (docs/webhooks.md, Secrets
 * at rest): stored encrypted like the subscription's own row, opened again for a repeat, so
 * the replay shows exactly the first answer. The additional authenticated data names the
 * purpose, the key's scope (tenant, caller, key) and the webhook id: a value of a stored
 * answer does not decrypt in the webhooks table nor in another stored answer, and the other
 * way round. Answers without a secret (refusals) are kept as they are.
 */
@Injectable()
export class SecretAnswers implements StoredAnswerCodec {
  private readonly logger = new Logger('WebhookSecrets');

  constructor(private readonly secrets: WebhookSecrets) {}

  seal(body: string, { scope }: StoredAnswerContext): string {
    const answer = secretAnswer(body);
    if (!answer) return body;
    return JSON.stringify({ ...answer, secret: this.secrets.box.seal(answer.secret, storedAnswerOwner(scope, answer.id)) });
  }

  /** The stored answer with its secret decrypted; 410 webhook_secret_unavailable when it no longer decrypts. */
  open(stored: string, { scope }: StoredAnswerContext): string {
    const answer = secretAnswer(stored);
    if (!answer) return stored;
    try {
      return JSON.stringify({ ...answer, secret: this.secrets.box.open(answer.secret, storedAnswerOwner(scope, answer.id)) });
    } catch (err) {
      if (!(err instanceof SecretUnreadableError)) throw err;
      this.logger.warn(`webhook ${answer.id}: the stored answer of an Idempotency-Key is not replayed: ${err.message}`);
      throw storedSecretUnavailable(answer.id);
    }
  }
}

/** What a secret in a stored answer is bound to (never a bare webhook id, the owner in the webhooks table). */
const storedAnswerOwner = (scope: KeyScope, webhookId: string) =>
  JSON.stringify(['idempotency-answer', scope.tenantId, scope.caller, scope.key, webhookId]);

function secretAnswer(body: string): SecretAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const answer = value as Record<string, unknown>;
  return typeof answer['id'] === 'string' && typeof answer['secret'] === 'string' ? (answer as SecretAnswer) : undefined;
}
