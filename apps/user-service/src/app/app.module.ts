import { Module } from '@nestjs/common';
import { PlatformModule } from '@vault/platform/bootstrap';
import { DatabaseModule } from '@vault/platform/persistence';
import { UserEnv } from '../config/user.env';
import { AccountsModule } from '../features/accounts/accounts.module';
import { AgreementsModule } from '../features/agreements/agreements.module';
import { ContactsModule } from '../features/contacts/contacts.module';
import { AccountDeletionModule } from '../features/deletion/account-deletion.module';
import { InvitationsModule } from '../features/invitations/invitations.module';
import { MfaModule } from '../features/mfa/mfa.module';
import { RegistrationModule } from '../features/registration/registration.module';
import { SessionModule } from '../features/session/session.module';
import { SettingsModule } from '../features/settings/settings.module';
import { MIGRATIONS } from '../migrations';
import { ENTITIES } from '../persistence/entities';

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
