import { Injectable } from '@nestjs/common';
import type { Principal, UpdateAccountDto } from '@vault/contracts';
import { IfMatchCondition } from '@vault/platform/http';
import { AccountEntity } from '../../persistence/accounts/account.entity';
import { AccountRepository } from '../../persistence/accounts/account.repository';
import { applyProfile, emailsOf } from '../../capabilities/own-account/account-profile';
import { accountETag, ownAccount, OwnAccountService } from '../../capabilities/own-account/own-account.service';
import { accountNotFound } from '../../capabilities/own-account/own-account.errors';

/** `/accounts`: the caller's own account by id, username or openId, its update, the username check. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly own: OwnAccountService,
    private readonly accounts: AccountRepository,
  ) {}

  byId(p: Principal, id: string): Promise<AccountEntity> {
    return this.own.ownById(p, id);
  }

  async byUsername(p: Principal, username: string): Promise<AccountEntity> {
    return ownAccount(await this.accounts.findOwnByUsername(p, username));
  }

  async byOpenId(p: Principal, openId: string): Promise<AccountEntity> {
    if (openId !== p.openId) throw accountNotFound();
    return ownAccount(await this.accounts.findByIdentity(p));
  }

  /** Whether any account of the caller's tenant has this username (case-insensitive). */
  usernameExists(p: Principal, username: string): Promise<boolean> {
    return this.accounts.usernameExists(p.tenantId, username);
  }

  /**
   * `PUT`: replaces every updatable field; settings and agreements are left alone.
   * `ifMatch` must name the current version (checked under the row lock).
   */
  update(p: Principal, id: string, dto: UpdateAccountDto, ifMatch = IfMatchCondition.absent): Promise<AccountEntity> {
    return this.own.mutate(p, id, (a) => {
      ifMatch.assert(accountETag(a));
      applyProfile(a, dto);
      a.username = dto.username;
      a.emails = emailsOf(dto.emails ?? [], a.emails);
    });
  }
}
