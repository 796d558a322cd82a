import { Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { DEFAULT_LOCALE } from '@vault/contracts';
import type { CreateAccountDto, EmailEntryDto, Principal } from '@vault/contracts';
import { applyProfile, emailsOf, sameAddress } from '../../capabilities/own-account/account-profile';
import { OwnAccountService } from '../../capabilities/own-account/own-account.service';
import { AccountEntity } from '../../persistence/accounts/account.entity';
import { AgreementRepository } from '../../persistence/agreements/agreement.repository';
import { InvitationRepository } from '../../persistence/invitations/invitation.repository';
import { SettingsFields } from '../../persistence/settings/settings.entity';
import { SettingsRepository } from '../../persistence/settings/settings.repository';
import { Tx } from '@vault/platform/persistence';
import { emailAddressRequired, emailsRepeat, invalidInvitationCode, usernameRequired } from './registration.errors';

/** Settings of an account created without any (documented in docs/user-api.md). */
const DEFAULT_SETTINGS: SettingsFields = {
  notificationMethod: 'email',
  communicationLanguage: DEFAULT_LOCALE,
  preferredLanguage: DEFAULT_LOCALE,
  country: 'US',
  mfaDisabled: false,
  mfaMode: 'sometimes',
};

/**
 * Email entries of a new account: an entry without address takes the identity's
 * email; with no entries at all, the identity's email becomes the primary one.
 */
function creationEmails(dto: CreateAccountDto, identityEmail: string | undefined): EmailEntryDto[] {
  if (dto.emails === undefined) {
    return identityEmail ? [{ address: identityEmail, primary: true }] : [];
  }
  const entries = dto.emails.map((e, i) => {
    const address = e.address ?? identityEmail;
    if (!address) throw emailAddressRequired(i);
    return { address, primary: e.primary };
  });
  entries.forEach((e, i) => {
    if (entries.findIndex((o) => sameAddress(o.address, e.address)) !== i) throw emailsRepeat();
  });
  return entries;
}

/** A new account of the caller's identity from a creation body. */
function newAccount(p: Principal, dto: CreateAccountDto): AccountEntity {
  const username = dto.username ?? p.username;
  if (!username) throw usernameRequired();
  const identityEmail = p.username && isEmail(p.username) ? p.username : undefined;
  const account = new AccountEntity();
  account.id = randomUUID();
  account.tenantId = p.tenantId;
  account.openId = p.openId;
  account.username = username;
  account.customerId = null;
  account.active = true;
  applyProfile(account, dto);
  account.emails = emailsOf(creationEmails(dto, identityEmail));
  return account;
}

/** `POST /accounts`: the caller's account, with settings, agreements and an optional invitation. */
@Injectable()
export class RegistrationService {
  constructor(
    private readonly own: OwnAccountService,
    private readonly settings: SettingsRepository,
    private readonly agreements: AgreementRepository,
    private readonly invitations: InvitationRepository,
  ) {}

  async register(p: Principal, dto: CreateAccountDto): Promise<string> {
    const saved = await this.own.create(newAccount(p, dto), async (account, tx) => {
      await this.settings.insert(tx, account.id, dto.settings ?? DEFAULT_SETTINGS);
      await this.agreements.append(tx, account.id, dto.agreements ?? []);
      if (dto.invitationCode) await this.redeem(tx, p.tenantId, dto.invitationCode, account.id);
    });
    return saved.id;
  }

  /**
   * Consumes an invitation code of the tenant for the new account, inside its creation
   * transaction (a failed creation leaves the code unused).
   */
  private async redeem(tx: Tx, tenantId: string, code: string, accountId: string): Promise<void> {
    if (!(await this.invitations.consume(tx, tenantId, code, accountId))) throw invalidInvitationCode();
  }
}
