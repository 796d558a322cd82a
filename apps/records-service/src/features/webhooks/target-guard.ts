import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook never reaches unless WEBHOOK_ALLOWED_TARGETS allows them:
 * unspecified, loopback, private, shared (CGNAT), link-local (cloud metadata at
 * 169.254.169.254 and fd00:ec2::254 included), benchmarking, multicast and reserved.
 * IPv4-mapped IPv6 addresses follow the IPv4 rules (BlockList checks them so).
 */
const REFUSED: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'],
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['::1', 128, 'ipv6'],
  ['64:ff9b::', 96, 'ipv6'],
  ['100::', 64, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
];

/** Why a target is refused (the problem detail at subscription time, the last error at delivery). */
export class TargetRefusedError extends Error {}

const family = (address: string): 'ipv4' | 'ipv6' => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

const stripBrackets = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/**
 * The SSRF rules of outbound webhook requests (docs/webhooks.md, Safe delivery): https
 * only, and no address in REFUSED after DNS resolution, except targets named by
 * WEBHOOK_ALLOWED_TARGETS (host names, addresses or CIDRs), which may also use http.
 * `lookup` is the resolver of every outbound connection, so the address checked is
 * the address connected to (no DNS rebinding between check and connect).
 */
export class TargetGuard {
  private readonly refused = new BlockList();
  private readonly allowedNets = new BlockList();
  private readonly allowedHosts = new Set<string>();

  constructor(allowedTargets: string) {
    for (const [net, prefix, fam] of REFUSED) this.refused.addSubnet(net, prefix, fam);
    for (const raw of allowedTargets.split(',').map((s) => s.trim()).filter(Boolean)) {
      const [addr, prefix] = raw.split('/');
      const ip = stripBrackets(addr);
      if (isIP(ip) && prefix !== undefined) this.allowedNets.addSubnet(ip, Number(prefix), family(ip));
      else if (isIP(ip)) this.allowedNets.addAddress(ip, family(ip));
      else this.allowedHosts.add(raw.toLowerCase());
    }
  }

  /** Checks a subscription's url now (scheme, host, every resolved address); throws TargetRefusedError. */
  async check(raw: string): Promise<URL> {
    const url = this.parse(raw);
    const host = stripBrackets(url.hostname);
    // A host allowed by name is trusted whatever it resolves to (it may not resolve yet).
    if (this.hostAllowed(host)) return url;
    const addresses = isIP(host) ? [host] : await this.resolve(host);
    this.checkAddresses(host, addresses);
    if (url.protocol === 'http:' && !addresses.every((a) => this.addressAllowed(a))) {
      throw new TargetRefusedError('the url must use https (http only for allowed targets)');
    }
    return url;
  }

  /**
   * A `dns.lookup` replacement for outbound sockets: resolves and refuses the
   * connection when any address of the host is refused.
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number } | number,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const all = typeof options === 'object' && options.all === true;
    this.resolve(hostname)
      .then((addresses) => {
        this.checkAddresses(hostname, addresses);
        const found = addresses.map((a) => ({ address: a, family: isIP(a) }));
        if (all) callback(null, found);
        else callback(null, found[0].address, found[0].family);
      })
      .catch((err: Error) => callback(err, all ? [] : '', 0));
  };

  private parse(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new TargetRefusedError('the url is not an absolute URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new TargetRefusedError('the url must use https');
    }
    if (url.username || url.password) throw new TargetRefusedError('the url must not carry credentials');
    return url;
  }

  private hostAllowed(host: string): boolean {
    return this.allowedHosts.has(host.toLowerCase());
  }

  private addressAllowed(address: string): boolean {
    return this.allowedNets.check(address, family(address));
  }

  private checkAddresses(host: string, addresses: string[]): void {
    if (this.hostAllowed(host)) return;
    const bad = addresses.find((a) => this.refused.check(a, family(a)) && !this.addressAllowed(a));
    if (bad) {
      throw new TargetRefusedError(
        `${host} resolves to ${bad}, a loopback, private, link-local or metadata address`,
      );
    }
  }

  private resolve(host: string): Promise<string[]> {
    if (isIP(host)) return Promise.resolve([host]);
    return new Promise((resolve, reject) =>
      dnsLookup(host, { all: true, verbatim: true }, (err, found) => {
        if (err || found.length === 0) reject(new TargetRefusedError(`${host} does not resolve`));
        else resolve(found.map((f) => f.address));
      }),
    );
  }
}
