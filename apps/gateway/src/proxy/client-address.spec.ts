import { ClientAddressResolver, parseCidr, parseCidrList } from './client-address';

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

describe('CIDR parsing', () => {
  it('accepts addresses and ranges of both families', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('127.0.0.1')).toEqual({ address: '127.0.0.1', prefix: 32, family: 'ipv4' });
    expect(parseCidr('fd00::/8')).toEqual({ address: 'fd00::', prefix: 8, family: 'ipv6' });
    expect(parseCidrList('')).toBeUndefined();
    expect(parseCidrList(' 10.0.0.0/8 , ')?.check('10.2.3.4')).toBe(true);
  });

  it.each(['10.0.0.0/33', 'fd00::/129', 'example.com', '10.0.0.0/8/1', '10.0.0.0/x'])('refuses %s', (bad) => {
    expect(parseCidr(bad)).toBeUndefined();
    expect(() => parseCidrList(`127.0.0.1,${bad}`)).toThrow(bad);
  });
});
