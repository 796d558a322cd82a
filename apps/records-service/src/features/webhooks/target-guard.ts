import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { AddressList, refusalOf } from './target-addresses';

/** Why a target is refused (the problem detail at subscription time, the last error at delivery). */
export class TargetRefusedError extends Error {}

const stripBrackets = (host: string) => host.replace(/^\[(.*)\]$/, '$1');

/** A url to post to, checked without DNS: its host name is checked when a socket resolves it. */
export interface CheckedUrl {
  url: URL;
  /** http: every address the host resolves to must be allowed (the plain-http lookup). */
  plain: boolean;
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback) => void;

/**
 * The SSRF rules of outbound webhook requests (docs/webhooks.md, Safe delivery): https
 * only, and no address that is not public unicast after DNS resolution (refusalOf, over
 * the special-purpose registries, IPv4 addresses embedded in IPv6 forms included),
 * except targets named by WEBHOOK_ALLOWED_TARGETS (host names, addresses or CIDRs),
 * which may also use http. A delivery resolves a host once, in the socket's lookup
 * (`lookup` for https, `plainLookup` for http), and connects to the addresses checked
 * there: no DNS rebinding between check and connect.
 */
export class TargetGuard {
  private readonly allowedNets = new AddressList();
  private readonly allowedHosts = new Set<string>();

  constructor(allowedTargets: string) {
    for (const raw of allowedTargets
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!this.allowedNets.add(raw)) this.allowedHosts.add(raw.toLowerCase());
    }
  }

  /** Checks a subscription's url now (scheme, host, every resolved address); throws TargetRefusedError. */
  async check(raw: string): Promise<URL> {
    const { url, plain } = this.checkUrl(raw);
    const host = stripBrackets(url.hostname);
    if (isIP(host) || this.hostAllowed(host)) return url;
    this.checkAddresses(host, await this.resolve(host), plain);
    return url;
  }

  /**
   * Checks a url before a request without resolving it: scheme, credentials, and an
   * address written in it (sockets do not resolve those). A host name is checked by the
   * lookup of the socket that connects to it.
   */
  checkUrl(raw: string): CheckedUrl {
    const url = this.parse(raw);
    const host = stripBrackets(url.hostname);
    const plain = url.protocol === 'http:';
    // A host allowed by name is trusted whatever it resolves to (it may not resolve yet).
    if (this.hostAllowed(host)) return { url, plain };
    if (isIP(host)) this.checkAddresses(host, [host], plain);
    return { url, plain };
  }

  /** A `dns.lookup` replacement for https sockets: refuses the connection when any address of the host is refused. */
  readonly lookup: Lookup = (hostname, options, callback) => this.guardedLookup(hostname, options, false, callback);

  /** The same for http sockets: every address must be allowed by WEBHOOK_ALLOWED_TARGETS. */
  readonly plainLookup: Lookup = (hostname, options, callback) => this.guardedLookup(hostname, options, true, callback);

  private guardedLookup(
    hostname: string,
    options: { all?: boolean; family?: number } | number,
    plain: boolean,
    callback: LookupCallback,
  ): void {
    const all = typeof options === 'object' && options.all === true;
    this.resolve(hostname)
      .then((addresses) => {
        this.checkAddresses(hostname, addresses, plain);
        const found = addresses.map((a) => ({ address: a, family: isIP(a) }));
        if (all) callback(null, found);
        else callback(null, found[0].address, found[0].family);
      })
      .catch((err: Error) => callback(err, all ? [] : '', 0));
  }

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

  /** Throws unless every address is public (or allowed); with `plain` (http), every address must be allowed. */
  private checkAddresses(host: string, addresses: string[], plain: boolean): void {
    if (this.hostAllowed(host)) return;
    for (const address of addresses) {
      if (this.allowedNets.has(address)) continue;
      const refusal = refusalOf(address);
      if (refusal) {
        throw new TargetRefusedError(
          `${host} resolves to ${address} (${refusal}), a loopback, private, link-local, reserved or metadata address`,
        );
      }
      if (plain) throw new TargetRefusedError('the url must use https (http only for allowed targets)');
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
