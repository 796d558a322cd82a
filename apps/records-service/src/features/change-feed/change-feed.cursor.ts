import { givenMoreThanOnce, invalidCursor, invalidLimit } from './change-feed.errors';

/** Largest bigserial value: a cursor beyond it is not one this service made. */
const MAX_SEQ = 9_223_372_036_854_775_807n;

/** The opaque cursor of the feed position `seq` (base64url, clients must not read it). */
export const encodeCursor = (seq: string): string => Buffer.from(`f1:${seq}`).toString('base64url');

/** The feed position of a cursor; anything this service did not make is a 400 on `field`. */
export function decodeCursor(text: string, field: string): string {
  const m = /^f1:(0|[1-9]\d{0,18})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!/^[A-Za-z0-9_-]+$/.test(text) || !m || BigInt(m[1]) > MAX_SEQ) {
    throw invalidCursor(field);
  }
  return m[1];
}

/** `limit` of a page: 1 to 500, 100 when absent; anything else is a 400. */
export function parseLimit(text: string | undefined): number {
  if (text === undefined || text === '') return 100;
  const n = /^\d{1,3}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 500)) {
    throw invalidLimit();
  }
  return n;
}

/** A query parameter given at most once: its text (undefined when absent); repeated is a 400. */
export function queryText(value: unknown, field: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw givenMoreThanOnce(field);
}
