import { Module } from '@nestjs/common';
import { DirectoryModule } from '../../capabilities/directory/directory.module';
import { TokensModule } from '../../capabilities/tokens/tokens.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { LoginThrottle } from './login-throttle.service';

/** `POST .../auth`: token issuance with throttling of repeated failures. */
@Module({
  imports: [DirectoryModule, TokensModule, PersistenceModule],
  controllers: [AuthController],
  providers: [AuthService, LoginThrottle],
})
export class AuthModule {}
