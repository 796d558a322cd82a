import { AccountEntity } from './accounts/account.entity';
import { AgreementEntity } from './agreements/agreement.entity';
import { InvitationEntity } from './invitations/invitation.entity';
import { MfaCodeEntity } from './mfa-codes/mfa-code.entity';
import { SettingsEntity } from './settings/settings.entity';

/** Every TypeORM entity of user-service, imported as classes (the app is bundled). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const ENTITIES: Function[] = [AccountEntity, SettingsEntity, AgreementEntity, MfaCodeEntity, InvitationEntity];
