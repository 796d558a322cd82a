import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createNodeFetch, createVaultClient, type FetchLike, type VaultClient, type VaultClientOptions } from '@vault/sdk';
import { domain, setupValue } from './client';
import { assertDocumented } from './openapi-validator';

/** The gateway's self-signed certificate of this run (the SDK trusts it as a CA). */
export const gatewayCa = () => readFileSync(join(setupValue('E2E_WORK_DIR'), 'certs', 'gateway.crt'));

/** The application the SDK suites sign in through (bootstrap-file.ts). */
export const ALPHA_APP = { tenantId: 'alpha', clientId: 'alpha-prod', clientSecret: 'alpha-prod-secret' } as const;

/**
 * The SDK's fetch, with every answer checked against the OpenAPI document like the answers of
 * `call` (support/openapi-validator.ts); streams (SSE, file bytes) are passed through unread.
 */
function documentedFetch(inner: FetchLike): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    const type = response.headers.get('content-type') ?? '';
    if (!/json|text\/plain/.test(type) && response.body !== null && response.status < 300) return response;
    const text = await response.clone().text();
    const u = new URL(url);
    const module = /^(developer|user|records)-api\./.exec(u.hostname)?.[1];
    if (module) {
      assertDocumented({
        module,
        method: String(init.method ?? 'GET'),
        path: u.pathname + u.search,
        requestHeaders: Object.fromEntries(new Headers(init.headers).entries()),
        status: response.status,
        headers: Object.fromEntries(response.headers.entries()),
        text,
        body: /json/.test(type) && text ? JSON.parse(text) : text,
      });
    }
    return response;
  };
}

/** An SDK client of the shared platform signed in as `username` (password grant, then refresh tokens). */
export function sdkFor(username: string, password: string, options: Partial<VaultClientOptions> = {}): VaultClient {
  const tls = { ca: gatewayCa() };
  return createVaultClient({
    domain: `${domain()}:${setupValue('E2E_GATEWAY_PORT')}`,
    tls,
    auth: { ...ALPHA_APP, username, password },
    // Answers through the fault proxy are partly the proxy's own: those are not the platform's to document.
    ...(options.baseUrls ? {} : { fetch: documentedFetch(createNodeFetch(tls)) }),
    ...options,
  });
}
