/** The three modules reached through the gateway, by the first label of the Host header. */
export const MODULE_HOSTS = ['developer-api', 'user-api', 'records-api'] as const;
export type ModuleHost = (typeof MODULE_HOSTS)[number];

export interface Upstream {
  module: ModuleHost;
  hostname: string;
  port: number;
}

export interface UpstreamUrls {
  'developer-api': string;
  'user-api': string;
  'records-api': string;
}

/**
 * Maps `<module>.<domain>` (any port, any case, optional trailing dot) to the
 * module's upstream; every other Host answers undefined.
 */
export class HostRouter {
  private readonly byHost = new Map<string, Upstream>();

  constructor(domain: string, urls: UpstreamUrls) {
    for (const module of MODULE_HOSTS) {
      const url = new URL(urls[module]);
      this.byHost.set(`${module}.${domain.toLowerCase()}`, {
        module,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port ? Number(url.port) : 80,
      });
    }
  }

  resolve(host: string | undefined): Upstream | undefined {
    if (!host) return undefined;
    return this.byHost.get(hostnameOf(host));
  }

  /** The public host names served, for the certificate. */
  hosts(): string[] {
    return [...this.byHost.keys()];
  }
}

/** Host header without port, lower case, without a trailing dot. IPv6 literals stay bracketed. */
export function hostnameOf(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith('[')) {
    const end = name.indexOf(']');
    return end === -1 ? name : name.slice(0, end + 1);
  }
  const colon = name.indexOf(':');
  if (colon !== -1) name = name.slice(0, colon);
  return name.endsWith('.') ? name.slice(0, -1) : name;
}
