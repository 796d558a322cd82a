import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, fetch as undiciFetch } from 'undici';

/** The fetch the SDK calls: the global one, or any with its signature. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** TLS settings for a gateway whose certificate no public CA signed (a local one). */
export interface TlsOptions {
  /** PEM of the CA (or the self-signed certificate) to trust besides the system's. */
  ca?: string | Buffer;
  /** false accepts any certificate: for local development only. */
  rejectUnauthorized?: boolean;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `dns.lookup`, except that `localhost` and every `*.localhost` name is the loopback address
 * (RFC 6761 §6.3), which glibc does not answer for subdomains: the platform's local module hosts
 * (`records-api.localhost`) work in Node without `/etc/hosts` entries.
 */
export function localhostLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  if (/(^|\.)localhost\.?$/i.test(hostname)) {
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
    return;
  }
  dnsLookup(hostname, options, callback as never);
}

/** Options for `node:https` requests (the tus client's): the same lookup and TLS settings. */
export function nodeRequestOptions(tls: TlsOptions = {}): Record<string, unknown> {
  return { lookup: localhostLookup, ...tls };
}

/** A fetch over one keep-alive pool that resolves `*.localhost` and trusts `tls`. */
export function createNodeFetch(tls: TlsOptions = {}): FetchLike {
  const dispatcher = new Agent({ connect: { lookup: localhostLookup as never, ...tls } });
  return (url, init) =>
    undiciFetch(url, { ...(init as Record<string, unknown>), dispatcher } as never) as unknown as Promise<Response>;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
