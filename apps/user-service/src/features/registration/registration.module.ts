import { Module } from '@nestjs/common';
import { OwnAccountModule } from '../../capabilities/own-account/own-account.module';
import { PersistenceModule } from '../../persistence/persistence.module';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';

/** Account creation: ties the account, its settings, agreements and invitation together. */
@Module({
  imports: [PersistenceModule, OwnAccountModule],
  controllers: [RegistrationController],
  providers: [RegistrationService],
})
export class RegistrationModule {}
