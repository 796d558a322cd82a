import { AddressList, refusalOf } from './target-addresses';
import { TargetGuard } from './target-guard';

/** Every form the guard must classify: [address, refused because (a fragment), or undefined for public]. */
const TABLE: [string, RegExp | undefined][] = [
  // IPv4
  ['93.184.215.14', undefined],
  ['8.8.8.8', undefined],
  ['0.0.0.0', /unspecified/],
  ['0.1.2.3', /unspecified/],
  ['127.0.0.1', /loopback/],
  ['127.255.0.2', /loopback/],
  ['10.1.2.3', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.254', /private/],
  ['192.168.1.1', /private/],
  ['100.64.0.1', /carrierGradeNat/],
  ['169.254.169.254', /linkLocal/],
  ['192.0.0.8', /reserved/],
  ['192.0.2.1', /reserved/],
  ['198.18.0.1', /reserved/],
  ['198.51.100.7', /reserved/],
  ['203.0.113.9', /reserved/],
  ['224.0.0.1', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /broadcast/],
  // IPv6, native
  ['2606:4700::1111', undefined],
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['fe80::1', /linkLocal/],
  ['fc00::1', /uniqueLocal/],
  ['fd00:ec2::254', /uniqueLocal/],
  ['fec0::1', /deprecatedSiteLocal/],
  ['ff02::1', /multicast/],
  ['100::1', /discard/],
  ['2001:db8::1', /reserved/],
  ['2001:2::1', /benchmarking/],
  ['2001:10::1', /deprecatedOrchid/],
  // IPv4-mapped ::ffff:0:0/96
  ['::ffff:127.0.0.1', /ipv4Mapped embedding 127\.0\.0\.1 \(loopback\)/],
  ['::ffff:7f00:1', /ipv4Mapped embedding 127\.0\.0\.1/],
  ['::ffff:a9fe:a9fe', /ipv4Mapped embedding 169\.254\.169\.254 \(linkLocal\)/],
  ['::ffff:93.184.215.14', undefined],
  // SIIT ::ffff:0:0:0/96 (RFC 6145): never a target
  ['::ffff:0:7f00:1', /rfc6145 embedding 127\.0\.0\.1/],
  ['::ffff:0:a00:1', /rfc6145 embedding 10\.0\.0\.1 \(private\)/],
  ['::ffff:0:5db8:d70e', /rfc6145/],
  // IPv4-compatible ::/96 (deprecated): never a target
  ['::7f00:2', /ipv4Compatible embedding 127\.0\.0\.2 \(loopback\)/],
  ['::127.0.0.1', /ipv4Compatible embedding 127\.0\.0\.1/],
  ['::a00:1', /ipv4Compatible embedding 10\.0\.0\.1/],
  ['::5db8:d70e', /ipv4Compatible/],
  ['::93.184.215.14', /ipv4Compatible/],
  // NAT64 well-known prefix 64:ff9b::/96 (RFC 6052)
  ['64:ff9b::7f00:1', /rfc6052 embedding 127\.0\.0\.1 \(loopback\)/],
  ['64:ff9b::10.0.0.1', /rfc6052 embedding 10\.0\.0\.1 \(private\)/],
  ['64:ff9b::a9fe:a9fe', /rfc6052 embedding 169\.254\.169\.254/],
  ['64:ff9b::5db8:d70e', undefined],
  // NAT64 local-use 64:ff9b:1::/48 (RFC 8215): where the IPv4 address sits is the operator's choice
  ['64:ff9b:1::7f00:1', /rfc6052 \(a local-use prefix\)/],
  ['64:ff9b:1:7f00:1::', /rfc6052 \(a local-use prefix\)/],
  ['64:ff9b:1::5db8:d70e', /local-use/],
  // 6to4 2002::/16 (RFC 3056)
  ['2002:7f00:1::', /6to4 embedding 127\.0\.0\.1 \(loopback\)/],
  ['2002:a00:1::1', /6to4 embedding 10\.0\.0\.1 \(private\)/],
  ['2002:c0a8:101:1::1', /6to4 embedding 192\.168\.1\.1/],
  ['2002:5db8:d70e::1', undefined],
  // Teredo 2001::/32 (RFC 4380): server, then the client inverted
  ['2001:0:7f00:1::', /teredo embedding 127\.0\.0\.1 \(loopback\)/],
  ['2001:0:5db8:d70e:0:0:f5ff:fffe', /teredo embedding 10\.0\.0\.1 \(private\)/],
  ['2001:0:5db8:d70e:0:0:a247:28f1', undefined],
  // not addresses
  ['localhost', /not an IP address/],
  ['127.1', /not an IP address/],
];

describe('refusalOf', () => {
  it.each(TABLE)('%s → %s', (address, refused) => {
    const got = refusalOf(address);
    if (refused) expect(got).toMatch(refused);
    else expect(got).toBeUndefined();
  });
});

describe('TargetGuard on addresses written in the url', () => {
  const guard = new TargetGuard('');
  it.each([
    // the four forms that passed the guard before it classified embedded IPv4 addresses
    'https://[64:ff9b:1::7f00:1]/hook',
    'https://[2002:7f00:1::]/hook',
    'https://[::7f00:2]/hook',
    'https://[::ffff:0:7f00:1]/hook',
    'https://[2001:0:7f00:1::]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[64:ff9b::a9fe:a9fe]/hook',
  ])('refuses %s at subscription and before a delivery', async (url) => {
    await expect(guard.check(url)).rejects.toThrow(/resolves to .*embedding|local-use/);
    expect(() => guard.checkUrl(url)).toThrow(/resolves to/);
  });

  it('lets a public address embedded in NAT64 and 6to4 forms through over https', async () => {
    await expect(guard.check('https://[64:ff9b::5db8:d70e]/x')).resolves.toBeInstanceOf(URL);
    await expect(guard.check('https://[2002:5db8:d70e::1]/x')).resolves.toBeInstanceOf(URL);
  });
});

describe('AddressList', () => {
  it('matches addresses and CIDRs of both families, an IPv4-mapped address as its IPv4 address', () => {
    const list = new AddressList();
    for (const entry of ['127.0.0.1', '10.1.0.0/16', '[fd00:1::]/32', '::1']) expect(list.add(entry)).toBe(true);
    expect(list.add('hooks.example.test')).toBe(false);
    expect(list.has('127.0.0.1')).toBe(true);
    expect(list.has('::ffff:127.0.0.1')).toBe(true);
    expect(list.has('10.1.9.9')).toBe(true);
    expect(list.has('10.2.0.1')).toBe(false);
    expect(list.has('fd00:1::5')).toBe(true);
    expect(list.has('fd00:2::5')).toBe(false);
    expect(list.has('::1')).toBe(true);
    expect(list.has('::ffff:0:7f00:1')).toBe(false);
  });
});
