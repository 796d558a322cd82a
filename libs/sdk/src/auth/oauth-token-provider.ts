import { errorFromResponse, VaultApiError } from '../errors.js';
import type { SendInit } from '../policy/transport.js';
import type { TokenProvider } from './token-provider.js';

/** The tokens of a sign-in, as the provider keeps them. */
export interface TokenSet {
  accessToken: string;
  /** Rotated on every use: keep the newest (see {@link OAuthTokenProviderOptions.onTokens}). */
  refreshToken?: string;
  /** When the access token expires, ms since the epoch. */
  expiresAt: number;
}

/** The application a client signs in through (developer module, docs/developer-api.md). */
export interface ClientCredentials {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

export interface OAuthTokenProviderOptions extends ClientCredentials {
  /** The developer module's base address, e.g. `https://developer-api.localhost:8443/api/v1`. */
  developerUrl: string;
  /** Password grant: the organisation user's credentials. */
  username?: string;
  password?: string;
  /** Tokens of an earlier sign-in (a CLI's stored session). */
  tokens?: TokenSet;
  /** Called with every new token set (store the rotated refresh token). */
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  /** Renew this many seconds before expiry (default 30). */
  skewSeconds?: number;
  now?: () => number;
}

type Send = (url: string, init: SendInit) => Promise<Response>;

/**
 * Access tokens from the application's OAuth 2.0 token endpoint (`POST …/oauth/token`): a
 * password grant to sign in, then refresh-token grants (rotation) before each expiry; a refused
 * refresh token (`invalid_grant`) signs in again when the password is known. One renewal at a
 * time, however many calls wait for it.
 */
export class OAuthTokenProvider implements TokenProvider {
  private current: TokenSet | undefined;
  private pending: Promise<TokenSet> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly options: OAuthTokenProviderOptions,
    private readonly send: Send,
  ) {
    this.current = options.tokens;
    this.now = options.now ?? Date.now;
  }

  get tokenUrl(): string {
    const o = this.options;
    return `${o.developerUrl}/tenant/tenant-id/${encodeURIComponent(o.tenantId)}/applications/client-id/${encodeURIComponent(o.clientId)}/oauth/token`;
  }

  /** The tokens held now (after a sign-in or a renewal). */
  get tokens(): TokenSet | undefined {
    return this.current;
  }

  async getToken(signal?: AbortSignal): Promise<string> {
    const skew = (this.options.skewSeconds ?? 30) * 1000;
    if (this.current && this.current.expiresAt - skew > this.now()) return this.current.accessToken;
    return (await this.renew(signal)).accessToken;
  }

  invalidate(token: string): void {
    if (this.current?.accessToken === token) this.current = { ...this.current, expiresAt: 0 };
  }

  /** Signs in with the password grant now (the CLI's `login`). */
  async signIn(signal?: AbortSignal): Promise<TokenSet> {
    const { username, password } = this.options;
    if (!username || !password) throw new Error('signIn needs a username and a password');
    return this.store(await this.grant({ grant_type: 'password', username, password, scope: 'vault' }, signal));
  }

  private renew(signal?: AbortSignal): Promise<TokenSet> {
    this.pending ??= this.obtain(signal).finally(() => (this.pending = undefined));
    return this.pending;
  }

  private async obtain(signal?: AbortSignal): Promise<TokenSet> {
    const refreshToken = this.current?.refreshToken;
    if (refreshToken) {
      try {
        return this.store(await this.grant({ grant_type: 'refresh_token', refresh_token: refreshToken }, signal));
      } catch (e) {
        if (!(e instanceof VaultApiError && e.code === 'invalid_grant' && this.options.password)) throw e;
      }
    }
    return this.signIn(signal);
  }

  private async store(tokens: TokenSet): Promise<TokenSet> {
    this.current = tokens;
    await this.options.onTokens?.(tokens);
    return tokens;
  }

  private async grant(params: Record<string, string>, signal?: AbortSignal): Promise<TokenSet> {
    const { clientId, clientSecret } = this.options;
    const body = new URLSearchParams({ ...params, client_id: clientId, client_secret: clientSecret }).toString();
    const response = await this.send(this.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      signal,
      auth: false,
    });
    if (!response.ok) throw await errorFromResponse(response);
    const json = (await response.json()) as { access_token: string; expires_in: number; refresh_token?: string };
    return {
      accessToken: json.access_token,
      refreshToken: json.refresh_token ?? this.current?.refreshToken,
      expiresAt: this.now() + json.expires_in * 1000,
    };
  }
}
