import { ClientAddressResolver } from './client-address';

describe('ClientAddressResolver', () => {
  it('takes the socket peer when no proxy is trusted, ignoring X-Forwarded-For', () => {
    const r = new ClientAddressResolver(undefined);
    expect(r.resolve('203.0.113.9', '6.6.6.6')).toBe('203.0.113.9');
    expect(r.resolve('::ffff:203.0.113.9', undefined)).toBe('203.0.113.9');
  });

  it('reads X-Forwarded-For from the right when the peer is a trusted proxy', () => {
    const r = new ClientAddressResolver('10.0.0.0/8, fd00::/8');
    expect(r.resolve('10.1.2.3', '203.0.113.9')).toBe('203.0.113.9');
    expect(r.resolve('10.1.2.3', '6.6.6.6, 203.0.113.9, 10.9.9.9')).toBe('203.0.113.9');
    expect(r.resolve('fd00::1', ['6.6.6.6', '2001:db8::7'])).toBe('2001:db8::7');
    expect(r.resolve('10.1.2.3', '10.4.4.4, 10.5.5.5')).toBe('10.4.4.4');
  });

  it('ignores X-Forwarded-For from an untrusted peer or when it is malformed', () => {
    const r = new ClientAddressResolver('10.0.0.0/8');
    expect(r.resolve('203.0.113.9', '6.6.6.6')).toBe('203.0.113.9');
    expect(r.resolve('10.1.2.3', 'unknown')).toBe('10.1.2.3');
    expect(r.resolve('10.1.2.3', undefined)).toBe('10.1.2.3');
  });
});
