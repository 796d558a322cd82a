import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AgreementsModule } from '../agreements/agreements.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { SettingsModule } from '../settings/settings.module';
import { RegistrationController } from './registration.controller';
import { RegistrationService } from './registration.service';

/** Account creation: ties the account, its settings, agreements and invitation together. */
@Module({
  imports: [AccountsModule, SettingsModule, AgreementsModule, InvitationsModule],
  controllers: [RegistrationController],
  providers: [RegistrationService],
})
export class RegistrationModule {}
