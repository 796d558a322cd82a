import type { ActivityLogFilter, LogKey } from '../../persistence/activity-log/activity-log.repository';
import { invalidCursor } from './activity-log.errors';

/** What a cursor carries: where the next page starts, its number, and the filters it was made for. */
export interface LogCursor {
  key: LogKey;
  page: number;
}

const filterSignature = (f: ActivityLogFilter) => [f.entity ?? '', f.eventType ?? '', f.actorOpenId ?? ''].join('\u0000');

export function encodeCursor(cursor: LogCursor, f: ActivityLogFilter): string {
  const { occurredUs, loggedUs, eventId } = cursor.key;
  return Buffer.from(JSON.stringify([occurredUs, loggedUs, eventId, cursor.page, filterSignature(f)])).toString('base64url');
}

/** The cursor of a `nextCursor`; anything else, or one made for other filters, is a 400. */
export function decodeCursor(text: string, f: ActivityLogFilter): LogCursor {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('cursor must be a page.nextCursor of an earlier answer');
  }
  if (
    !Array.isArray(parts) ||
    parts.length !== 5 ||
    !/^-?\d{1,19}$/.test(String(parts[0])) ||
    !/^-?\d{1,19}$/.test(String(parts[1])) ||
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(String(parts[2])) ||
    !Number.isInteger(parts[3]) ||
    (parts[3] as number) < 2
  ) {
    throw invalidCursor('cursor must be a page.nextCursor of an earlier answer');
  }
  if (parts[4] !== filterSignature(f)) throw invalidCursor('cursor was made for other filters');
  return {
    key: { occurredUs: String(parts[0]), loggedUs: String(parts[1]), eventId: String(parts[2]) },
    page: parts[3] as number,
  };
}
