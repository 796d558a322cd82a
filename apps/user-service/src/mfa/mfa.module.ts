import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { MessagingModule } from '../messaging/messaging.module';
import { MfaController } from './mfa.controller';
import { MfaService } from './mfa.service';

@Module({
  imports: [AccountsModule, MessagingModule],
  controllers: [MfaController],
  providers: [MfaService],
})
export class MfaModule {}
