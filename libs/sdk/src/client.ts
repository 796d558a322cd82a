import createClient from 'openapi-fetch';
import type { DeveloperPaths, RecordsPaths, UserPaths } from './api-types.js';
import { OAuthTokenProvider, type ClientCredentials, type TokenSet } from './auth/oauth-token-provider.js';
import { staticToken, type TokenProvider } from './auth/token-provider.js';
import { createNodeFetch, type FetchLike, type TlsOptions } from './policy/net.js';
import type { RetryOptions } from './policy/retry-policy.js';
import { Transport, type RetryEvent } from './policy/transport.js';
import { AccountsApi, CollaboratorsApi } from './resources/accounts.js';
import { ActivityApi } from './resources/activity.js';
import { FilesApi } from './resources/files.js';
import { LifecycleApi } from './resources/lifecycle.js';
import { RecordsApi } from './resources/records.js';
import { VaultsApi } from './resources/vaults.js';
import { WebhooksApi } from './resources/webhooks.js';

export type Module = 'developer' | 'user' | 'records';

export interface VaultClientOptions {
  /**
   * The platform's domain with its port: `localhost:8443` gives
   * `https://records-api.localhost:8443/api/v1` and the two other modules' addresses.
   */
  domain?: string;
  /** Each module's base address (wins over `domain`), e.g. `{ records: 'https://records-api.example.com/api/v1' }`. */
  baseUrls?: Partial<Record<Module, string>>;
  /** A token, a {@link TokenProvider}, or an application's credentials and a user's to sign in with. */
  auth?: string | TokenProvider | PasswordAuth;
  /** A CA to trust (a local gateway's self-signed certificate) or `rejectUnauthorized: false`. */
  tls?: TlsOptions;
  /** Another fetch (tests, proxies); the default resolves `*.localhost` to 127.0.0.1 and applies `tls`. */
  fetch?: FetchLike;
  retry?: Partial<RetryOptions>;
  /** Time allowed until an answer's headers arrive, per attempt (default 30 s). */
  timeoutMs?: number;
  /** Called before each retry with the wait (logging, tests). */
  onRetry?: (event: RetryEvent) => void;
  userAgent?: string;
}

/** Sign-in with the OAuth password grant, then refresh tokens. */
export interface PasswordAuth extends ClientCredentials {
  username?: string;
  password?: string;
  /** Tokens of an earlier sign-in. */
  tokens?: TokenSet;
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
}

/**
 * The Vault platform's client: `developer`, `user` and `records` are openapi-fetch clients typed
 * by the OpenAPI document (every route), the other members the conveniences (iterators, uploads,
 * downloads, the change feed). Every request goes through one {@link Transport}: token, retries,
 * Idempotency-Key, timeouts.
 */
export class VaultClient {
  readonly baseUrls: Record<Module, string>;
  readonly transport: Transport;
  readonly tokens: TokenProvider | undefined;
  readonly developer;
  readonly user;
  readonly records;
  readonly accounts: AccountsApi;
  readonly vaults: VaultsApi;
  readonly recordsApi: RecordsApi;
  readonly files: FilesApi;
  readonly activity: ActivityApi;
  readonly webhooks: WebhooksApi;
  readonly collaborators: CollaboratorsApi;
  /** Trash, legal holds and content search. */
  readonly lifecycle: LifecycleApi;

  constructor(readonly options: VaultClientOptions) {
    this.baseUrls = resolveBaseUrls(options);
    const fetch = options.fetch ?? createNodeFetch(options.tls);
    const base = {
      fetch,
      retry: options.retry,
      timeoutMs: options.timeoutMs,
      onRetry: options.onRetry,
      userAgent: options.userAgent ?? 'vault-sdk',
    };
    // Token requests go through the same policy, without a token of their own.
    const tokenTransport = new Transport(base);
    this.tokens = tokenProvider(options.auth, this.baseUrls.developer, (url, init) => tokenTransport.send(url, init));
    this.transport = new Transport({ ...base, tokens: this.tokens });
    const f = this.transport.fetch;
    this.developer = createClient<DeveloperPaths>({ baseUrl: this.baseUrls.developer, fetch: f });
    this.user = createClient<UserPaths>({ baseUrl: this.baseUrls.user, fetch: f });
    this.records = createClient<RecordsPaths>({ baseUrl: this.baseUrls.records, fetch: f });
    this.accounts = new AccountsApi(this.user);
    this.vaults = new VaultsApi(this.records);
    this.recordsApi = new RecordsApi(this.records);
    this.files = new FilesApi(this.records, this.transport, {
      recordsUrl: this.baseUrls.records,
      tokens: this.tokens,
      tls: options.tls,
    });
    this.activity = new ActivityApi(this.records, this.transport, this.baseUrls.records);
    this.webhooks = new WebhooksApi(this.records);
    this.collaborators = new CollaboratorsApi(this.records);
    this.lifecycle = new LifecycleApi(this.records);
  }
}

/** A client of the platform (see {@link VaultClientOptions}). */
export function createVaultClient(options: VaultClientOptions): VaultClient {
  return new VaultClient(options);
}

function resolveBaseUrls(o: VaultClientOptions): Record<Module, string> {
  const of = (m: Module) => {
    const url = o.baseUrls?.[m] ?? (o.domain ? `https://${m}-api.${o.domain}/api/v1` : undefined);
    if (!url) throw new Error(`createVaultClient: no address for the ${m} module (give domain or baseUrls.${m})`);
    return url.replace(/\/+$/, '');
  };
  return { developer: of('developer'), user: of('user'), records: of('records') };
}

function tokenProvider(
  auth: VaultClientOptions['auth'],
  developerUrl: string,
  send: ConstructorParameters<typeof OAuthTokenProvider>[1],
) {
  if (auth === undefined) return undefined;
  if (typeof auth === 'string') return staticToken(auth);
  if ('getToken' in auth) return auth;
  return new OAuthTokenProvider({ ...auth, developerUrl }, send);
}
