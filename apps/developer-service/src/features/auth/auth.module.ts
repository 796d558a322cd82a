import { Module } from '@nestjs/common';
import { DirectoryModule } from '../../capabilities/directory/directory.module';
import { RefreshTokensModule } from '../../capabilities/refresh-tokens/refresh-tokens.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { DeviceCookies } from './device-cookies';
import { LoginThrottle } from './login-throttle.service';
import { OAuthTokenController } from './oauth-token.controller';
import { OAuthTokenService } from './oauth-token.service';
import { SignInService } from './sign-in.service';

/**
 * Token issuance: `POST .../auth` (the contract's answer plus a refresh token) and the
 * OAuth 2.0 token endpoint `POST .../oauth/token`, with throttling of repeated failures.
 */
@Module({
  imports: [DirectoryModule, RefreshTokensModule, PersistenceModule],
  controllers: [AuthController, OAuthTokenController],
  providers: [AuthService, SignInService, OAuthTokenService, LoginThrottle, DeviceCookies],
})
export class AuthModule {}
