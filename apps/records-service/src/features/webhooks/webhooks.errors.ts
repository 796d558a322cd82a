import { WEBHOOK_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';

/** Every problem the webhook routes raise of their own. */

export const webhookNotFound = () =>
  ProblemException.of(WEBHOOK_ERRORS.webhookNotFound, 'The vault has no webhook with this id.');

export const deliveryNotFound = () =>
  ProblemException.of(WEBHOOK_ERRORS.webhookDeliveryNotFound, 'The webhook has no delivery with this id.');

/** The delivery is leased by an attempt; `retryAfterSeconds`: until its lease runs out at the latest. */
export const deliveryInFlight = (retryAfterSeconds: number) =>
  ProblemException.of(
    WEBHOOK_ERRORS.webhookDeliveryInFlight,
    'The delivery is being sent right now; redeliver it once that attempt has ended.',
    { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) } },
  );

export const targetRefused = (why: string) =>
  ProblemException.of(WEBHOOK_ERRORS.webhookTargetRefused, `The webhook url is refused: ${why}.`, {
    errors: [{ field: 'url', message: why }],
  });

/** A repeat of a creation whose stored answer holds a secret that no longer decrypts (docs/webhooks.md, Secrets at rest). */
export const storedSecretUnavailable = (webhookId: string) =>
  ProblemException.of(
    WEBHOOK_ERRORS.webhookSecretUnavailable,
    `The stored answer of this Idempotency-Key shows the signing secret of webhook ${webhookId}, which can no longer be decrypted; ` +
      'the subscription exists: rotate its secret (rotate-secret) to get a new one.',
  );
