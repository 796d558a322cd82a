import { parseCidr, parseCidrList } from './cidr-list';

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
