import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { isEmail } from 'class-validator';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { CreateAccountDto, EmailEntryDto, Principal } from '@vault/contracts';
import { ProblemException } from '@vault/platform';
import { AccountEntity } from '../accounts/account.entity';
import { applyProfile, emailsOf, sameAddress } from '../accounts/account-profile';
import { AccountsService } from '../accounts/accounts.service';
import { rethrowAsConflict } from '../accounts/duplicate-key';
import { AgreementsService } from '../agreements/agreements.service';
import { InvitationsService } from '../invitations/invitations.service';
import { SettingsService } from '../settings/settings.service';

function missing(field: string, message: string): ProblemException {
  return ProblemException.badRequest('The request has 1 invalid field.', [{ field, message }]);
}

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
    if (!address) throw missing(`emails.${i}.address`, 'address is required (the identity has no email)');
    return { address, primary: e.primary };
  });
  entries.forEach((e, i) => {
    if (entries.findIndex((o) => sameAddress(o.address, e.address)) !== i) {
      throw missing('emails', 'emails must not repeat an address');
    }
  });
  return entries;
}

/** `POST /accounts`: the caller's account, with settings, agreements and an optional invitation. */
@Injectable()
export class RegistrationService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountsService,
    private readonly settings: SettingsService,
    private readonly agreements: AgreementsService,
    private readonly invitations: InvitationsService,
  ) {}

  async register(p: Principal, dto: CreateAccountDto): Promise<string> {
    const username = dto.username ?? p.username;
    if (!username) throw missing('username', 'username is required (the identity has no user name)');
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

    const saved = await this.dataSource
      .transaction(async (m) => {
        const created = await m.getRepository(AccountEntity).save(account);
        await this.accounts.recordCreated(m, created);
        await this.settings.createFor(m, account.id, dto.settings);
        await this.agreements.append(m, account.id, dto.agreements ?? []);
        if (dto.invitationCode) {
          await this.invitations.redeem(m, p.tenantId, dto.invitationCode, account.id);
        }
        return created;
      })
      .catch(rethrowAsConflict);
    return saved.id;
  }
}
