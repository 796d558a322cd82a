import { BlockList, isIP } from 'node:net';
import { parseCidrList } from '../../config/cidr-list';

/** `::ffff:10.0.0.1` (IPv4 on a dual-stack socket) is 10.0.0.1. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * Decides the client's address. By default the gateway is the edge and the
 * socket's peer is the client. When the peer is a trusted proxy (an Ingress
 * or load balancer in front), X-Forwarded-For is read from the right and the
 * first address that is not a trusted proxy is the client; addresses further
 * left were written by the client and are ignored.
 */
export class ClientAddressResolver {
  private readonly trusted?: BlockList;

  constructor(trustedProxyCidrs?: string) {
    this.trusted = parseCidrList(trustedProxyCidrs);
  }

  resolve(socketAddress: string | undefined, forwardedFor: string | string[] | undefined): string {
    const peer = plain(socketAddress ?? '');
    const trusted = this.trusted;
    if (!trusted || !forwardedFor || !isIn(trusted, peer)) return peer;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map((h) => plain(h.trim()));
    for (let i = hops.length - 1; i >= 0; i--) {
      if (isIP(hops[i]) === 0) return peer;
      if (!isIn(trusted, hops[i])) return hops[i];
    }
    return hops[0] ?? peer;
  }
}

function isIn(list: BlockList, address: string): boolean {
  const version = isIP(address);
  return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
}
