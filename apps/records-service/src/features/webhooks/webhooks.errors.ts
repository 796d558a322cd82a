import { WEBHOOK_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';

export const webhookNotFound = () =>
  new ProblemException(404, WEBHOOK_ERROR_CODES.webhookNotFound, 'The vault has no webhook with this id.');

export const deliveryNotFound = () =>
  new ProblemException(404, WEBHOOK_ERROR_CODES.webhookDeliveryNotFound, 'The webhook has no delivery with this id.');

/** The delivery is leased by an attempt; `retryAfterSeconds`: until its lease runs out at the latest. */
export const deliveryInFlight = (retryAfterSeconds: number) =>
  new ProblemException(
    409,
    WEBHOOK_ERROR_CODES.webhookDeliveryInFlight,
    'The delivery is being sent right now; redeliver it once that attempt has ended.',
    undefined,
    { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  );

export const targetRefused = (why: string) =>
  new ProblemException(400, WEBHOOK_ERROR_CODES.webhookTargetRefused, `The webhook url is refused: ${why}.`, [
    { field: 'url', message: why },
  ]);

/** A repeat of a creation whose stored answer holds a secret that no longer decrypts (docs/webhooks.md, Secrets at rest). */
export const storedSecretUnavailable = (webhookId: string) =>
  new ProblemException(
    410,
    WEBHOOK_ERROR_CODES.webhookSecretUnavailable,
    `The stored answer of this Idempotency-Key shows the signing secret of webhook ${webhookId}, which can no longer be decrypted; ` +
      'the subscription exists: rotate its secret (rotate-secret) to get a new one.',
  );
