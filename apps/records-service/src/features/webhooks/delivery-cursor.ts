import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import type { DeliveryKey } from '../../persistence/webhooks/webhook-delivery.repository';

/** What a delivery-log cursor carries: the last delivery of the page it continues, and the next page's number. */
export interface DeliveryCursor {
  after: DeliveryKey;
  page: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const invalid = (message: string) =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The cursor is not valid for this request.', {
    errors: [{ field: 'cursor', message }],
  });

export const pageAndCursor = () => invalid('cursor and page cannot be sent together');

export const encodeDeliveryCursor = (c: DeliveryCursor): string =>
  Buffer.from(JSON.stringify([c.after.at, c.after.seq, c.after.id, c.page])).toString('base64url');

/** The cursor of a `nextCursor` of the delivery log; anything else is a 400. */
export function decodeDeliveryCursor(text: string): DeliveryCursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor must be the nextCursor of an earlier answer');
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 4 ||
    !TIME.test(String(parts[0])) ||
    !/^\d{1,19}$/.test(String(parts[1])) ||
    !UUID.test(String(parts[2])) ||
    !Number.isInteger(parts[3]) ||
    (parts[3] as number) < 2
  ) {
    throw invalid('cursor must be the nextCursor of an earlier answer');
  }
  return { after: { at: String(parts[0]), seq: String(parts[1]), id: String(parts[2]) }, page: parts[3] as number };
}
