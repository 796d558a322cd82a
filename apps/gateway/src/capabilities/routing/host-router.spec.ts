import { HostRouter, hostnameOf } from './host-router';

describe('HostRouter', () => {
  const router = new HostRouter('example.com', {
    'developer-api': 'http://10.0.0.1:3001',
    'user-api': 'http://user:3002',
    'records-api': 'http://[::1]:3003',
  });

  it('routes each module host to its upstream, ignoring port, case and a trailing dot', () => {
    expect(router.resolve('developer-api.example.com')).toEqual({
      module: 'developer-api',
      hostname: '10.0.0.1',
      port: 3001,
    });
    expect(router.resolve('USER-API.Example.com:8443')?.module).toBe('user-api');
    expect(router.resolve('user-api.example.com.')?.hostname).toBe('user');
    expect(router.resolve('records-api.example.com')).toEqual({
      module: 'records-api',
      hostname: '::1',
      port: 3003,
    });
  });

  it('answers undefined for other hosts', () => {
    for (const host of [
      undefined,
      '',
      'example.com',
      'admin-api.example.com',
      'user-api.example.org',
      'x.user-api.example.com',
      'user-api.example.com.evil.net',
      '[::1]:8443',
      '127.0.0.1:8443',
    ]) {
      expect(router.resolve(host)).toBeUndefined();
    }
  });

  it('lists the public host names', () => {
    expect(router.hosts()).toEqual(['developer-api.example.com', 'user-api.example.com', 'records-api.example.com']);
  });

  it('defaults the upstream port to 80', () => {
    const r = new HostRouter('localhost', {
      'developer-api': 'http://dev',
      'user-api': 'http://user',
      'records-api': 'http://records',
    });
    expect(r.resolve('developer-api.localhost')?.port).toBe(80);
  });

  it('extracts the host name', () => {
    expect(hostnameOf('A.B:1')).toBe('a.b');
    expect(hostnameOf('[::1]:8443')).toBe('[::1]');
    expect(hostnameOf(' a.b. ')).toBe('a.b');
  });
});
