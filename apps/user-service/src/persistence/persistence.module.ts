import { Module } from '@nestjs/common';
import { AccountRepository } from './accounts/account.repository';
import { AgreementRepository } from './agreements/agreement.repository';
import { InvitationRepository } from './invitations/invitation.repository';
import { MfaCodeRepository } from './mfa-codes/mfa-code.repository';
import { SettingsRepository } from './settings/settings.repository';
import { Transactions } from '@vault/platform/persistence';

const PROVIDERS = [
  Transactions,
  AccountRepository,
  SettingsRepository,
  AgreementRepository,
  MfaCodeRepository,
  InvitationRepository,
];

/**
 * The user-service persistence seam: one repository per aggregate (queries and row
 * locks, nothing else) and the transaction runner. Services above it hold the rules.
 */
@Module({ providers: PROVIDERS, exports: PROVIDERS })
export class PersistenceModule {}
