import { Injectable } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { Principal } from '@vault/contracts';
import { IfMatchCondition, versionETag } from '@vault/platform/http';
import { AccountEntity } from '../../persistence/accounts/account.entity';
import { AccountRepository } from '../../persistence/accounts/account.repository';
import { Transactions, Tx } from '@vault/platform/persistence';
import { accountState, AccountOutbox, stateChanged } from '../account-events/account-outbox';
import { erasePersonalData } from './account-profile';
import { accountNotFound, mapAccountConflict } from './own-account.errors';

/** The ETag of an account's stored version. */
export const accountETag = (a: AccountEntity): string => versionETag(a.id, a.version);

/** The account found, else the one 404 of an account that is not the caller's. */
export function ownAccount(a: AccountEntity | null): AccountEntity {
  if (!a) throw accountNotFound();
  return a;
}

/**
 * The caller's own account, and every write of an account row with its event. Every
 * lookup is scoped to the caller's identity (tenant + openId): another identity's
 * account, in any tenant, is 404; so is a deleted account.
 */
@Injectable()
export class OwnAccountService {
  constructor(
    private readonly transactions: Transactions,
    private readonly accounts: AccountRepository,
    private readonly outbox: AccountOutbox,
  ) {}

  async ownById(p: Principal, id: string): Promise<AccountEntity> {
    if (!isUUID(id)) throw accountNotFound();
    return ownAccount(await this.accounts.findOwn(p, id));
  }

  /**
   * Stores a new account and its `account.created` event in one transaction; `more`
   * runs last in it (when it throws, nothing is stored). A lost race on the identity
   * or the username is its 409.
   */
  create(account: AccountEntity, more: (a: AccountEntity, tx: Tx) => Promise<void>): Promise<AccountEntity> {
    return this.transactions
      .run(async (tx) => {
        const created = await this.accounts.save(tx, account);
        await this.outbox.created(tx, created);
        await more(created, tx);
        return created;
      })
      .catch(mapAccountConflict);
  }

  /**
   * Changes the caller's account under a row lock (concurrent changes of its
   * email and phone lists never lose each other). A change of the state account
   * events carry (names, username, active) writes an `account.updated` event in
   * the same transaction.
   */
  mutate(p: Principal, id: string, change: (a: AccountEntity, tx: Tx) => void | Promise<void>): Promise<AccountEntity> {
    return this.locked(p, id, async (account, tx) => {
      const before = accountState(account);
      await change(account, tx);
      const saved = await this.accounts.save(tx, account);
      if (stateChanged(before, accountState(saved))) await this.outbox.updated(tx, [saved]);
      return saved;
    });
  }

  /**
   * Deletes the caller's account (soft): under the row lock and `ifMatch`, the row
   * becomes inactive with `deletedAt` set, its personal fields erased and its version
   * raised; the `account.deleted` event carries the state it had (username and names)
   * with `active` false and the new version. `cleanUp` runs last in the same
   * transaction: when it throws, nothing is deleted.
   */
  delete(
    p: Principal,
    id: string,
    ifMatch: IfMatchCondition,
    cleanUp: (a: AccountEntity, tx: Tx) => Promise<void>,
  ): Promise<void> {
    return this.locked(p, id, async (account, tx) => {
      ifMatch.assert(accountETag(account));
      const last = accountState(account);
      erasePersonalData(account);
      account.active = false;
      account.deletedAt = new Date();
      const saved = await this.accounts.save(tx, account);
      await this.outbox.deleted(tx, [{ ...last, active: false, version: saved.version }]);
      await cleanUp(saved, tx);
    });
  }

  /** Runs `work` in a transaction on the caller's account, locked (404 when not its own). */
  private async locked<T>(p: Principal, id: string, work: (a: AccountEntity, tx: Tx) => Promise<T>): Promise<T> {
    if (!isUUID(id)) throw accountNotFound();
    return this.transactions
      .run(async (tx) => work(ownAccount(await this.accounts.lockOwn(tx, p, id)), tx))
      .catch(mapAccountConflict);
  }
}
