import { COMMON_ERRORS } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import type { TrashKey, TrashRow } from '../../persistence/trash/trash.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const invalidCursor = () =>
  ProblemException.of(COMMON_ERRORS.validationFailed, 'The request has 1 invalid field.', {
    errors: [{ field: 'cursor', message: 'cursor must be the nextCursor of an earlier answer' }],
  });

/** The cursor of the page after `last` (its deletion time to the microsecond and its id). */
export const encodeTrashCursor = (last: TrashRow): string =>
  Buffer.from(JSON.stringify([last.key, last.id])).toString('base64url');

/** Where the page of a `nextCursor` starts; anything else is a 400. */
export function decodeTrashCursor(text: string | undefined): TrashKey | null {
  if (text === undefined) return null;
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parts) || parts.length !== 2 || !TIME.test(String(parts[0])) || !UUID.test(String(parts[1]))) {
    throw invalidCursor();
  }
  return { at: String(parts[0]), id: String(parts[1]) };
}
