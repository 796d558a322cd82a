import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager, Repository } from 'typeorm';
import type { Principal, UpdateAccountDto } from '@vault/contracts';
import { IfMatchCondition, ProblemException, versionETag } from '@vault/platform';
import { AccountEntity } from './account.entity';
import { accountState, AccountOutbox, stateChanged } from '../account-events/account-outbox';
import { applyProfile, emailsOf, erasePersonalData } from './account-profile';
import { rethrowAsConflict } from './duplicate-key';

const NOT_FOUND = 'No such account.';

/** The ETag of an account's stored version. */
export const accountETag = (a: AccountEntity): string => versionETag(a.id, a.version);

/**
 * The caller's own account. Every lookup is scoped to the caller's identity
 * (tenant + openId): another identity's account, in any tenant, is 404; so is a
 * deleted account (TypeORM skips rows with `deletedAt` set).
 */
@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(AccountEntity) private readonly repo: Repository<AccountEntity>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: AccountOutbox,
  ) {}

  async ownById(p: Principal, id: string): Promise<AccountEntity> {
    if (!isUUID(id)) throw ProblemException.notFound(NOT_FOUND);
    return this.found(await this.repo.findOneBy({ id, tenantId: p.tenantId, openId: p.openId }));
  }

  async ownByUsername(p: Principal, username: string): Promise<AccountEntity> {
    const account = await this.repo
      .createQueryBuilder('a')
      .where('a.tenant_id = :t AND a.open_id = :o AND lower(a.username) = lower(:u)', {
        t: p.tenantId,
        o: p.openId,
        u: username,
      })
      .getOne();
    return this.found(account);
  }

  async ownByOpenId(p: Principal, openId: string): Promise<AccountEntity> {
    if (openId !== p.openId) throw ProblemException.notFound(NOT_FOUND);
    return this.found(await this.repo.findOneBy({ tenantId: p.tenantId, openId }));
  }

  /** Whether any account of the caller's tenant has this username (case-insensitive). */
  async usernameExists(p: Principal, username: string): Promise<boolean> {
    return this.repo
      .createQueryBuilder('a')
      .where('a.tenant_id = :t AND lower(a.username) = lower(:u)', { t: p.tenantId, u: username })
      .getExists();
  }

  /**
   * `PUT`: replaces every updatable field; settings and agreements are left alone.
   * `ifMatch` must name the current version (checked under the row lock).
   */
  update(p: Principal, id: string, dto: UpdateAccountDto, ifMatch = IfMatchCondition.absent): Promise<AccountEntity> {
    return this.mutate(p, id, (a) => {
      ifMatch.assert(accountETag(a));
      applyProfile(a, dto);
      a.username = dto.username;
      a.emails = emailsOf(dto.emails ?? [], a.emails);
    });
  }

  /**
   * Changes the caller's account under a row lock (concurrent changes of its
   * email and phone lists never lose each other). A change of the state account
   * events carry (names, username, active) writes an `account.updated` event in
   * the same transaction.
   */
  mutate(
    p: Principal,
    id: string,
    change: (a: AccountEntity, m: EntityManager) => void | Promise<void>,
  ): Promise<AccountEntity> {
    return this.locked(p, id, async (account, m) => {
      const before = accountState(account);
      await change(account, m);
      const saved = await m.getRepository(AccountEntity).save(account);
      if (stateChanged(before, accountState(saved))) await this.outbox.updated(m, [saved]);
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
    cleanUp: (a: AccountEntity, m: EntityManager) => Promise<void>,
  ): Promise<void> {
    return this.locked(p, id, async (account, m) => {
      ifMatch.assert(accountETag(account));
      const last = accountState(account);
      erasePersonalData(account);
      account.active = false;
      account.deletedAt = new Date();
      const saved = await m.getRepository(AccountEntity).save(account);
      await this.outbox.deleted(m, [{ ...last, active: false, version: saved.version }]);
      await cleanUp(saved, m);
    });
  }

  /** Runs `work` in a transaction on the caller's account, locked (404 when not its own). */
  private async locked<T>(p: Principal, id: string, work: (a: AccountEntity, m: EntityManager) => Promise<T>): Promise<T> {
    if (!isUUID(id)) throw ProblemException.notFound(NOT_FOUND);
    return this.dataSource
      .transaction(async (m) => {
        const account = this.found(
          await m.getRepository(AccountEntity).findOne({
            where: { id, tenantId: p.tenantId, openId: p.openId },
            lock: { mode: 'pessimistic_write' },
          }),
        );
        return work(account, m);
      })
      .catch(rethrowAsConflict);
  }

  /** Writes the `account.created` event of a new account (inside its creation transaction). */
  recordCreated(m: EntityManager, a: AccountEntity): Promise<void> {
    return this.outbox.created(m, a);
  }

  private found(a: AccountEntity | null): AccountEntity {
    if (!a) throw ProblemException.notFound(NOT_FOUND);
    return a;
  }
}
