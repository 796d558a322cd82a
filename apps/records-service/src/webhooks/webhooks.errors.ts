import { WEBHOOK_ERROR_CODES } from '@vault/contracts';
import { ProblemException } from '@vault/platform';

export const webhookNotFound = () =>
  new ProblemException(404, WEBHOOK_ERROR_CODES.webhookNotFound, 'The vault has no webhook with this id.');

export const deliveryNotFound = () =>
  new ProblemException(404, WEBHOOK_ERROR_CODES.webhookDeliveryNotFound, 'The webhook has no delivery with this id.');

export const targetRefused = (why: string) =>
  new ProblemException(400, WEBHOOK_ERROR_CODES.webhookTargetRefused, `The webhook url is refused: ${why}.`, [
    { field: 'url', message: why },
  ]);
