import { Module } from '@nestjs/common';
import { DatabaseModule, PlatformModule } from '@vault/platform';
import { UserEnv } from '../config/user.env';
import { ENTITIES } from './entities';
import { MIGRATIONS } from '../migrations';
import { AccountsModule } from '../accounts/accounts.module';
import { AgreementsModule } from '../agreements/agreements.module';
import { ContactsModule } from '../contacts/contacts.module';
import { AccountDeletionModule } from '../deletion/account-deletion.module';
import { InvitationsModule } from '../invitations/invitations.module';
import { MfaModule } from '../mfa/mfa.module';
import { RegistrationModule } from '../registration/registration.module';
import { SessionModule } from '../session/session.module';
import { SettingsModule } from '../settings/settings.module';

@Module({
  imports: [
    PlatformModule.forRoot({ name: 'user-service', env: UserEnv, kind: 'service' }),
    DatabaseModule.forRoot({ entities: ENTITIES, migrations: MIGRATIONS }),
    SessionModule,
    InvitationsModule,
    RegistrationModule,
    AccountsModule,
    AccountDeletionModule,
    ContactsModule,
    SettingsModule,
    AgreementsModule,
    MfaModule,
  ],
})
export class AppModule {}
