import { AllowedOrigins } from './allowed-origins';
import { allowedMethod, corsCase, varyOrigin } from './cors-rules';

describe('CORS rules', () => {
  const registered = (o: string) => o === 'https://app.example';
  const own = (o: string) => o === 'https://records-api.localhost';

  it('sorts requests into none, preflight and request', () => {
    expect(corsCase('GET', {}, registered, own)).toEqual({ kind: 'none' });
    expect(corsCase('GET', { origin: 'https://records-api.localhost' }, registered, own)).toEqual({ kind: 'none' });
    expect(
      corsCase('OPTIONS', { origin: 'https://app.example', 'access-control-request-method': 'PATCH' }, registered, own),
    ).toEqual({
      kind: 'preflight',
      origin: 'https://app.example',
      registered: true,
      method: 'PATCH',
    });
    expect(corsCase('OPTIONS', { origin: 'https://app.example' }, registered, own)).toEqual({
      kind: 'request',
      origin: 'https://app.example',
      registered: true,
    });
    expect(corsCase('POST', { origin: 'https://evil.example' }, registered, own)).toEqual({
      kind: 'request',
      origin: 'https://evil.example',
      registered: false,
    });
  });

  it('allows the API methods only, case-sensitively', () => {
    expect(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].every(allowedMethod)).toBe(true);
    expect(['TRACE', 'CONNECT', 'patch', ''].some(allowedMethod)).toBe(false);
  });

  it('adds Origin to Vary once', () => {
    expect(varyOrigin(undefined)).toBe('Origin');
    expect(varyOrigin('Accept-Encoding')).toBe('Accept-Encoding, Origin');
    expect(varyOrigin('origin, Accept')).toBe('origin, Accept');
    expect(varyOrigin('*')).toBe('*');
    expect(varyOrigin(['A', 'B'])).toBe('A, B, Origin');
  });
});

describe('AllowedOrigins', () => {
  it('keeps the union of the applications and drops what none lists any more', () => {
    const origins = new AllowedOrigins();
    origins.set('app.1', { origins: ['https://a.example', 'https://b.example'] });
    origins.set('app.2', { origins: ['https://b.example', 'not an origin', 'https://c.example:443'] });
    expect(['https://a.example', 'https://b.example', 'https://c.example'].every((o) => origins.has(o))).toBe(true);
    expect(origins.size).toBe(3);
    origins.set('app.1', undefined);
    expect(origins.has('https://a.example')).toBe(false);
    expect(origins.has('https://b.example')).toBe(true);
    origins.set('app.2', { origins: [] });
    expect(origins.size).toBe(0);
  });
});
