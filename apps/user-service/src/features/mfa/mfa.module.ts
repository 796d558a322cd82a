import { Module } from '@nestjs/common';
import { MessagingModule } from '../../capabilities/messaging/messaging.module';
import { OwnAccountModule } from '../../capabilities/own-account/own-account.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { MfaController } from './mfa.controller';
import { MfaService } from './mfa.service';

@Module({
  imports: [PersistenceModule, OwnAccountModule, MessagingModule],
  controllers: [MfaController],
  providers: [MfaService],
})
export class MfaModule {}
