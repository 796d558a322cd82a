import { Injectable } from '@nestjs/common';
import { ACCESS_TOKEN_SCOPE, DEVELOPER_ERRORS, OAUTH_GRANT_TYPES, OAuthGrantType, SignInResponseDto } from '@vault/contracts';
import { ProblemException } from '@vault/platform/errors';
import { DirectoryService } from '../../capabilities/directory/directory.service';
import { PasswordHasher } from '../../capabilities/directory/password-hasher';
import { RefreshRefused, RefreshTokensService } from '../../capabilities/refresh-tokens/refresh-tokens.service';
import {
  accountDeletedGrant,
  invalidClient,
  invalidRefreshToken,
  invalidRequest,
  invalidScope,
  invalidUserCredentials,
  slowDown,
  unsupportedGrantType,
} from './oauth.errors';
import { ClientCredentials, clientCredentials } from './oauth-client-auth';
import type { OAuthForm } from './oauth-form';
import { SignInService } from './sign-in.service';

/** The application a token request is made to (the path) and where it comes from. */
export interface TokenEndpointCall {
  tenantId: string;
  clientId: string;
  form: OAuthForm;
  authorization: string | undefined;
  ip: string;
}

/**
 * `POST .../oauth/token` (RFC 6749): the password grant (the contract's sign-in, §4.3) and
 * the refresh_token grant (§6), the client authenticated by client_secret_basic or
 * client_secret_post. Every refusal is an OAuthError (RFC 6749 §5.2 body).
 */
@Injectable()
export class OAuthTokenService {
  constructor(
    private readonly signIn: SignInService,
    private readonly refreshTokens: RefreshTokensService,
    private readonly directory: DirectoryService,
    private readonly hasher: PasswordHasher,
  ) {}

  async exchange(call: TokenEndpointCall): Promise<SignInResponseDto> {
    const grantType = grantTypeOf(call.form);
    const client = clientCredentials(call.form, call.authorization);
    // The path names the application; credentials of another client never authenticate here.
    if (client.clientId !== call.clientId) throw invalidClient(client.viaBasic);
    const scope = call.form.get('scope');
    if (scope !== undefined && scope.split(' ').some((s) => s !== ACCESS_TOKEN_SCOPE)) throw invalidScope();
    return grantType === 'password' ? this.passwordGrant(call, client) : this.refreshGrant(call, client);
  }

  /** The contract's sign-in, with its throttle; a wrong client is invalid_client, a wrong user invalid_grant. */
  private async passwordGrant(call: TokenEndpointCall, client: ClientCredentials): Promise<SignInResponseDto> {
    const username = required(call.form, 'username');
    const password = required(call.form, 'password');
    const checked = await this.signIn
      .check(call.tenantId, call.clientId, { clientSecret: client.secret, username, password }, call.ip)
      .catch((err: unknown) => {
        if (err instanceof ProblemException && err.getStatus() === 429) throw slowDown(err.headers?.['Retry-After'] ?? '1');
        throw err;
      });
    if (!checked.ok) throw checked.failed === 'client' ? invalidClient(client.viaBasic) : invalidUserCredentials();
    const subject = {
      userId: checked.user.id,
      username: checked.user.username,
      roles: checked.user.roles,
      tenantId: call.tenantId,
      clientId: call.clientId,
    };
    return this.refreshTokens.signIn(subject).catch((err: unknown) => {
      if (err instanceof ProblemException && err.code === DEVELOPER_ERRORS.accountDeleted.code) throw accountDeletedGrant();
      throw err;
    });
  }

  /** Spends the refresh token for a new pair; unknown, foreign, expired, revoked and reused all answer invalid_grant. */
  private async refreshGrant(call: TokenEndpointCall, client: ClientCredentials): Promise<SignInResponseDto> {
    const presented = required(call.form, 'refresh_token');
    const app = await this.directory.findApplication(call.tenantId, call.clientId);
    // verified against a dummy hash when the application is unknown: the same work either way
    const secretOk = await this.hasher.verify(app?.secretHash, client.secret);
    if (!app || !secretOk) throw invalidClient(client.viaBasic);
    try {
      return await this.refreshTokens.rotate(call.tenantId, call.clientId, presented);
    } catch (err) {
      if (err instanceof RefreshRefused) throw invalidRefreshToken();
      throw err;
    }
  }
}

function grantTypeOf(form: OAuthForm): OAuthGrantType {
  const grantType = form.get('grant_type');
  if (grantType === undefined) throw invalidRequest('grant_type is missing.');
  if (!(OAUTH_GRANT_TYPES as readonly string[]).includes(grantType)) throw unsupportedGrantType();
  return grantType as OAuthGrantType;
}

function required(form: OAuthForm, name: string): string {
  const value = form.get(name);
  if (value === undefined) throw invalidRequest(`${name} is missing.`);
  return value;
}
