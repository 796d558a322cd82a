import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * IPv6 forms that carry an IPv4 address, and whether a public IPv4 inside makes them a
 * public target: the IPv4-mapped form (the socket connects to the IPv4 address), NAT64's
 * well-known prefix (RFC 6052), 6to4 (RFC 3056) and Teredo (RFC 4380) reach the IPv4
 * address through public relays; the IPv4-compatible form (deprecated, RFC 4291) and
 * SIIT's ::ffff:0:0/96 (RFC 6145, internal to translators) are never targets.
 */
const EMBEDDING: Record<string, boolean> = {
  ipv4Mapped: true,
  rfc6052: true,
  '6to4': true,
  teredo: true,
  ipv4Compatible: false,
  rfc6145: false,
};

/** IPv6 ranges ipaddr.js calls unicast that are not public either (RFC 3879 site-local). */
const ALSO_REFUSED_V6 = [ipaddr.IPv6.parseCIDR('fec0::/10')];

const v4Of = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/** Where the IPv6 address sits in the special-purpose registry, with the IPv4-compatible form named. */
function rangeOf(ip: ipaddr.IPv6): string {
  const range = ip.range();
  const [a, b, c, d, e, f] = ip.parts;
  if (range === 'unicast' && a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0) return 'ipv4Compatible';
  if (range === 'unicast' && ALSO_REFUSED_V6.some((net) => ip.match(net))) return 'deprecatedSiteLocal';
  return range;
}

/**
 * The IPv4 addresses an IPv6 address embeds in its range's form; null when the range
 * embeds one in a form we cannot know (64:ff9b:1::/48, local-use NAT64 prefixes of any
 * length, RFC 8215), an empty list when it embeds none.
 */
function embeddedIPv4(ip: ipaddr.IPv6, range: string): ipaddr.IPv4[] | null {
  const p = ip.parts;
  switch (range) {
    case 'ipv4Mapped':
    case 'ipv4Compatible':
    case 'rfc6145':
      return [v4Of(p[6], p[7])];
    case 'rfc6052':
      return p[2] === 0 ? [v4Of(p[6], p[7])] : null;
    case '6to4':
      return [v4Of(p[1], p[2])];
    case 'teredo': // the server, then the client (stored inverted)
      return [v4Of(p[2], p[3]), v4Of(~p[6] & 0xffff, ~p[7] & 0xffff)];
    default:
      return [];
  }
}

/**
 * An IPv6 address with its dotted IPv4 tail written as hex groups, as the socket reads
 * it (ipaddr.js reads `::a.b.c.d` as IPv4-mapped, which it is not), without a zone id.
 */
function canonical(address: string): string {
  const bare = address.split('%')[0];
  return isIP(bare) === 6 && bare.includes('.') ? new URL(`http://[${bare}]/`).hostname.slice(1, -1) : bare;
}

/**
 * Why an address is not a public target (its special-purpose range, and for an IPv6 form
 * embedding an IPv4 address the range of that address too), or undefined when it is
 * public unicast. Anything that does not parse is refused.
 */
export function refusalOf(address: string): string | undefined {
  if (!isIP(address)) return 'not an IP address';
  const ip: Address = ipaddr.parse(canonical(address));
  if (ip.kind() === 'ipv4') {
    const range = (ip as ipaddr.IPv4).range();
    return range === 'unicast' ? undefined : range;
  }
  const v6 = ip as ipaddr.IPv6;
  const range = rangeOf(v6);
  if (!(range in EMBEDDING)) return range === 'unicast' ? undefined : range;
  const inner = embeddedIPv4(v6, range);
  if (inner === null) return `${range} (a local-use prefix)`;
  for (const v4 of inner) {
    const innerRange = v4.range();
    if (innerRange !== 'unicast') return `${range} embedding ${v4.toString()} (${innerRange})`;
  }
  return EMBEDDING[range] ? undefined : range;
}

/** Addresses and CIDRs (WEBHOOK_ALLOWED_TARGETS): an IPv4-mapped address matches as its IPv4 address. */
export class AddressList {
  private readonly nets: [Address, number][] = [];

  /** Adds `entry` when it is an address or a CIDR; false for anything else (a host name). */
  add(entry: string): boolean {
    const [raw, prefix] = entry.split('/');
    const address = raw.replace(/^\[(.*)\]$/, '$1');
    if (!isIP(address)) return false;
    const ip = ipaddr.parse(canonical(address));
    const bits = prefix === undefined ? (ip.kind() === 'ipv4' ? 32 : 128) : Number(prefix);
    this.nets.push([ip, bits]);
    return true;
  }

  has(address: string): boolean {
    if (!isIP(address)) return false;
    let ip: Address = ipaddr.parse(canonical(address));
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    return this.nets.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
  }
}
