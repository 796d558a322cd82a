import { Injectable, Logger } from '@nestjs/common';
import { TokenRequestDto, TokenResponseDto } from '@vault/contracts';
import { DirectoryService } from '../../capabilities/directory/directory.service';
import { PasswordHasher } from '../../capabilities/directory/password-hasher';
import { TokenSigner } from '../../capabilities/tokens/token-signer.service';
import { invalidCredentials } from './auth.errors';
import { LoginThrottle, loginKey } from './login-throttle.service';

/**
 * Exchanges client secret + organisation user credentials for an access token.
 * Unknown tenant, unknown client, a client of another tenant, wrong secret,
 * unknown user and wrong password all end in the same 401, after the same work:
 * two argon2 verifications (against a dummy hash for whatever is unknown).
 */
@Injectable()
export class AuthService {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly directory: DirectoryService,
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottle,
    private readonly signer: TokenSigner,
  ) {}

  async issueToken(
    tenantId: string,
    clientId: string,
    body: TokenRequestDto,
    ip: string,
  ): Promise<TokenResponseDto> {
    const attempt = {
      userKey: loginKey(tenantId, clientId, body.username),
      ip,
    };
    await this.throttle.begin(attempt);
    const [app, user] = await Promise.all([
      this.directory.findApplication(tenantId, clientId),
      this.directory.findUser(tenantId, body.username),
    ]);
    const secretOk = await this.hasher.verify(
      app?.secretHash,
      body.clientSecret,
    );
    const passwordOk = await this.hasher.verify(
      user?.passwordHash,
      body.password,
    );
    if (!app || !user || !secretOk || !passwordOk) {
      // The reason stays in the service log; the caller learns nothing from the answer.
      const reason = !app
        ? 'unknown tenant or client'
        : !secretOk
          ? 'wrong client secret'
          : !user
            ? 'unknown user'
            : 'wrong password';
      this.logger.debug(
        `sign-in refused for ${tenantId}/${clientId} from ${ip}: ${reason}`,
      );
      throw invalidCredentials();
    }
    await this.throttle.succeeded(attempt);
    return this.signer.issue({
      userId: user.id,
      username: user.username,
      tenantId,
      clientId: app.clientId,
    });
  }
}
