/**
 * Limits of every JSON (and form-encoded) request body, the same at the gateway
 * and in each module (docs/errors.md, Request bodies).
 */

/** Largest JSON or form-encoded body, in bytes (1 MiB). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * Deepest nesting of objects and arrays in a body, the top-level object counting
 * as 1. The deepest body the API describes (an account with settings and
 * agreements, a record whose free `recordDetails` holds a folder list) needs 4;
 * the rest is room for `recordDetails`.
 */
export const MAX_JSON_DEPTH = 32;

/** Keys refused in any object of a body: they name prototype machinery, never data. */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor']);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * True when the objects and arrays of a JSON text nest deeper than `max`.
 * One linear scan of the text, brackets inside strings skipped, no parsing and
 * no recursion: safe on any input, exact on valid JSON.
 */
export function jsonNestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** True for a key that is refused in request bodies (`__proto__`, `constructor`). */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/**
 * Dotted path (array items by index) of the first `__proto__` or `constructor`
 * key anywhere in a parsed body, or undefined. Walks with an explicit stack, so
 * depth never costs call stack.
 */
export function findForbiddenKey(value: unknown): string | undefined {
  const pending: [unknown, string][] = [[value, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, path] = next;
    if (node === null || typeof node !== 'object') continue;
    for (const key of Object.keys(node)) {
      const field = path ? `${path}.${key}` : key;
      if (isForbiddenKey(key)) return field;
      pending.push([(node as Record<string, unknown>)[key], field]);
    }
  }
  return undefined;
}

/**
 * Parses a JSON text that must hold an object, refusing what the request-body
 * rules refuse: nesting beyond `maxDepth` (checked before parsing) and
 * `__proto__`/`constructor` keys. Returns the object or the reason it is refused.
 */
export function parseJsonObject(
  text: string,
  maxDepth: number = MAX_JSON_DEPTH,
):
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; reason: 'too_deep' | 'malformed' | 'not_object' | 'forbidden_key'; field?: string } {
  if (jsonNestsDeeperThan(text, maxDepth)) return { ok: false, reason: 'too_deep' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not_object' };
  const field = findForbiddenKey(value);
  if (field !== undefined) return { ok: false, reason: 'forbidden_key', field };
  return { ok: true, value: value as Record<string, unknown> };
}
