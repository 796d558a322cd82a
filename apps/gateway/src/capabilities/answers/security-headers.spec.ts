import { HSTS, withSecurityHeaders } from './security-headers';

describe('withSecurityHeaders', () => {
  const set = {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "frame-ancestors 'none'",
  };

  it('adds the whole set, HSTS over TLS only, no-store when nothing else was said', () => {
    expect(withSecurityHeaders({ 'content-type': 'application/json' }, 200, true)).toEqual({
      'content-type': 'application/json',
      ...set,
      'strict-transport-security': HSTS,
      'cache-control': 'no-store',
    });
    expect(withSecurityHeaders({}, 400, false)).toEqual({ ...set, 'cache-control': 'no-store' });
    expect(HSTS).toBe('max-age=31536000; includeSubDomains');
  });

  it("keeps a module's Cache-Control on success and replaces it on errors", () => {
    expect(withSecurityHeaders({ 'cache-control': 'private, no-cache' }, 200, true)['cache-control']).toBe('private, no-cache');
    expect(withSecurityHeaders({ 'cache-control': 'private, no-cache' }, 304, true)['cache-control']).toBe('private, no-cache');
    expect(withSecurityHeaders({ 'cache-control': 'public, max-age=300' }, 200, true)['cache-control']).toBe(
      'public, max-age=300',
    );
    expect(withSecurityHeaders({ 'cache-control': 'private, no-cache' }, 416, true)['cache-control']).toBe('no-store');
  });

  it("keeps a module's Content-Security-Policy and forbids framing in it", () => {
    const csp = (policy: string) =>
      withSecurityHeaders({ 'content-security-policy': policy }, 200, true)['content-security-policy'];
    expect(csp("default-src 'none'; sandbox")).toBe("default-src 'none'; sandbox; frame-ancestors 'none'");
    expect(csp("default-src 'none';")).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(csp("default-src 'self'; frame-ancestors 'self'")).toBe("default-src 'self'; frame-ancestors 'self'");
  });

  it('replaces what a module said about sniffing, framing and referrers', () => {
    const out = withSecurityHeaders({ 'x-frame-options': 'SAMEORIGIN', 'referrer-policy': 'unsafe-url' }, 200, true);
    expect(out).toMatchObject({ 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
  });
});
