import { createVaultClient, OAuthTokenProvider } from '@vault/sdk';
import { parse } from '../support/args';
import { baseUrlsOf, print, tlsOf, type Context } from '../support/context';
import { UsageError } from '../support/exit-codes';
import { removeSession, writeSession } from '../support/session';

const OPTIONS = {
  domain: { type: 'string' },
  'url-template': { type: 'string' },
  tenant: { type: 'string' },
  client: { type: 'string' },
  'client-secret': { type: 'string' },
  username: { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
} as const;

/** `vault login`: signs in with the password grant and stores the tokens (never the password). */
export async function login(ctx: Context, argv: string[], stdin: () => Promise<string>): Promise<void> {
  const { values: v } = parse(argv, OPTIONS, []);
  const need = (value: string | undefined, flag: string, envName: string) => {
    const found = value ?? ctx.env[envName];
    if (!found) throw new UsageError(`--${flag} (or ${envName}) is required`);
    return found;
  };
  const domain = v.domain ?? ctx.env['VAULT_DOMAIN'];
  const urlTemplate =
    v['url-template'] ?? ctx.env['VAULT_URL_TEMPLATE'] ?? (domain ? `https://{module}-api.${domain}/api/v1` : undefined);
  if (!urlTemplate) throw new UsageError('--domain (or VAULT_DOMAIN) or --url-template is required');
  const password = v['password-stdin'] ? (await stdin()).replace(/\r?\n$/, '') : need(v.password, 'password', 'VAULT_PASSWORD');
  const session = {
    urlTemplate,
    tenantId: need(v.tenant, 'tenant', 'VAULT_TENANT'),
    clientId: need(v.client, 'client', 'VAULT_CLIENT_ID'),
    clientSecret: need(v['client-secret'], 'client-secret', 'VAULT_CLIENT_SECRET'),
    username: need(v.username, 'username', 'VAULT_USERNAME'),
    caFile: v.ca ?? ctx.env['VAULT_CA_FILE'],
    insecure: v.insecure ?? false,
  };
  const client = createVaultClient({
    baseUrls: baseUrlsOf(urlTemplate),
    tls: tlsOf(session),
    auth: {
      tenantId: session.tenantId,
      clientId: session.clientId,
      clientSecret: session.clientSecret,
      username: session.username,
      password,
    },
  });
  const tokens = await (client.tokens as OAuthTokenProvider).signIn(ctx.signal);
  writeSession(ctx.dir, { ...session, tokens });
  print(ctx, `signed in as ${session.username} (tenant ${session.tenantId}); session in ${ctx.dir}`, {
    username: session.username,
    tenantId: session.tenantId,
    expiresAt: new Date(tokens.expiresAt).toISOString(),
  });
}

/** `vault logout`: forgets the stored session. */
export async function logout(ctx: Context, argv: string[]): Promise<void> {
  parse(argv, {}, []);
  const removed = removeSession(ctx.dir);
  print(ctx, removed ? 'signed out' : 'not signed in', { signedOut: removed });
}
