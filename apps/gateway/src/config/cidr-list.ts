import { BlockList, isIP } from 'node:net';

/** `10.0.0.0/8`, `fd00::/8` or a single address. */
export function parseCidr(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, bits, extra] = entry.trim().split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = bits === undefined ? max : Number(bits);
  if (!/^\d{1,3}$/.test(bits ?? String(max)) || prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Comma-separated CIDR list; empty entries ignored. Throws naming the first bad entry. */
export function parseCidrList(value: string | undefined): BlockList | undefined {
  const entries = (value ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const cidr = parseCidr(entry);
    if (!cidr) throw new Error(`not an address or CIDR range: ${entry}`);
    list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return list;
}
