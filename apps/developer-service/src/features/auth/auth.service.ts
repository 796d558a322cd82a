import { Injectable } from '@nestjs/common';
import { SignInResponseDto, TokenRequestDto } from '@vault/contracts';
import { RefreshTokensService } from '../../capabilities/refresh-tokens/refresh-tokens.service';
import { invalidCredentials } from './auth.errors';
import { SignInService } from './sign-in.service';

/**
 * `POST .../auth`: exchanges client secret + organisation user credentials for an access
 * token and a refresh token. Unknown tenant, unknown client, a client of another tenant,
 * wrong secret, unknown user and wrong password all end in the same 401, after the same work.
 */
@Injectable()
export class AuthService {
  constructor(
    private readonly signIn: SignInService,
    private readonly refreshTokens: RefreshTokensService,
  ) {}

  async issueToken(tenantId: string, clientId: string, body: TokenRequestDto, ip: string): Promise<SignInResponseDto> {
    const checked = await this.signIn.check(tenantId, clientId, body, ip);
    // The caller learns nothing from the answer about which part was wrong.
    if (!checked.ok) throw invalidCredentials();
    return this.refreshTokens.signIn({
      userId: checked.user.id,
      username: checked.user.username,
      roles: checked.user.roles,
      tenantId,
      clientId: checked.app.clientId,
    });
  }
}
