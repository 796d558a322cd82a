import { canonicalJson, isStoredFailure, parseIdempotencyKey, requestFingerprint } from './idempotency';

describe('Idempotency-Key rules', () => {
  it('accepts 1 to 255 visible ASCII characters, bare or as a quoted string', () => {
    expect(parseIdempotencyKey('a')).toBe('a');
    expect(parseIdempotencyKey('k'.repeat(255))).toBe('k'.repeat(255));
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe('8e03978e-40d5-43e8-bc93-6894a57f9324');
    for (const bad of ['', 'k'.repeat(256), 'two words', 'tab\tkey', 'caf\u00e9', '""']) {
      expect(() => parseIdempotencyKey(bad)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    }
    expect(() => parseIdempotencyKey(['a', 'b'])).toThrow(expect.objectContaining({ code: 'validation_failed' }));
  });

  it('fingerprints the method, the path with query and the body whatever its key order', () => {
    const req = { method: 'POST', originalUrl: '/api/v1/vault' };
    const a = requestFingerprint(req, { name: 'x', nested: { b: 1, a: [2, { d: 1, c: 2 }] } });
    expect(requestFingerprint(req, { nested: { a: [2, { c: 2, d: 1 }], b: 1 }, name: 'x' })).toBe(a);
    expect(requestFingerprint(req, { name: 'y', nested: { b: 1, a: [2, { d: 1, c: 2 }] } })).not.toBe(a);
    expect(requestFingerprint({ ...req, originalUrl: '/api/v1/vault?x=1' }, { name: 'x', nested: { b: 1, a: [2, { d: 1, c: 2 }] } })).not.toBe(a);
    expect(canonicalJson({ b: undefined, a: null })).toBe('{"a":null}');
  });

  it('stores final client errors only', () => {
    expect([400, 403, 404, 409, 413, 422].map(isStoredFailure)).toEqual([true, true, true, true, true, true]);
    expect([408, 425, 429, 500, 503].map(isStoredFailure)).toEqual([false, false, false, false, false]);
  });
});
