import { corsOriginsBucket, corsOriginsKey, serializeOrigin } from './cors';

describe('CORS origins', () => {
  it('serializes scheme, host and port, dropping the default port', () => {
    expect(serializeOrigin('https://App.Example.com')).toBe('https://app.example.com');
    expect(serializeOrigin('https://app.example.com:443')).toBe('https://app.example.com');
    expect(serializeOrigin('http://127.0.0.1:5173')).toBe('http://127.0.0.1:5173');
    expect(serializeOrigin('http://[::1]:8080')).toBe('http://[::1]:8080');
  });

  it('refuses paths, wildcards, credentials, other schemes and junk', () => {
    for (const bad of [
      'https://app.example.com/',
      'https://app.example.com/path',
      'https://app.example.com?x=1',
      'https://app.example.com#f',
      'https://*.example.com',
      '*',
      'https://user@app.example.com',
      'ftp://app.example.com',
      'null',
      'app.example.com',
      'https://',
      'https://app.example.com:99999',
      'https://a b.example',
    ]) {
      expect([bad, serializeOrigin(bad)]).toEqual([bad, undefined]);
    }
  });

  it('keys entries by the hex of the client id and namespaces the bucket', () => {
    expect(corsOriginsKey('a~b')).toBe('app.617e62');
    expect(corsOriginsBucket()).toBe('cors_origins');
    expect(corsOriginsBucket('run1')).toBe('run1_cors_origins');
  });
});
