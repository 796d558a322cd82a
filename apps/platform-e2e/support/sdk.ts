import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createVaultClient, type VaultClient, type VaultClientOptions } from '@vault/sdk';
import { domain, setupValue } from './client';

/** The gateway's self-signed certificate of this run (the SDK trusts it as a CA). */
export const gatewayCa = () => readFileSync(join(setupValue('E2E_WORK_DIR'), 'certs', 'gateway.crt'));

/** The application the SDK suites sign in through (bootstrap-file.ts). */
export const ALPHA_APP = { tenantId: 'alpha', clientId: 'alpha-prod', clientSecret: 'alpha-prod-secret' } as const;

/** An SDK client of the shared platform signed in as `username` (password grant, then refresh tokens). */
export function sdkFor(username: string, password: string, options: Partial<VaultClientOptions> = {}): VaultClient {
  return createVaultClient({
    domain: `${domain()}:${setupValue('E2E_GATEWAY_PORT')}`,
    tls: { ca: gatewayCa() },
    auth: { ...ALPHA_APP, username, password },
    ...options,
  });
}
