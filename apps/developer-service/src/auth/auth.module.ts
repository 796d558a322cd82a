import { Module } from '@nestjs/common';
import { DirectoryModule } from '../directory/directory.module';
import { KeysModule } from '../keys/keys.module';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { LoginThrottle } from './login-throttle.service';

/** `POST .../auth`: token issuance with throttling of repeated failures. */
@Module({
  imports: [DirectoryModule, KeysModule],
  controllers: [AuthController],
  providers: [AuthService, LoginThrottle],
})
export class AuthModule {}
