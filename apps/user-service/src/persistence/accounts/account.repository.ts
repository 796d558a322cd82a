import { Injectable } from '@nestjs/common';
import { MoreThan } from 'typeorm';
import { Transactions, Tx } from '@vault/platform/persistence';
import { AccountEntity } from './account.entity';

/** The identity an account is bound to: its tenant and openId. */
export interface Identity {
  tenantId: string;
  openId: string;
}

/**
 * Queries and row locks of accounts. Every read skips a deleted account (TypeORM leaves
 * out rows with `deletedAt` set) unless it says otherwise.
 */
@Injectable()
export class AccountRepository {
  constructor(private readonly tx: Transactions) {}

  /** The identity's account with this id. */
  findOwn(who: Identity, id: string): Promise<AccountEntity | null> {
    return this.tx.none.findOneBy(AccountEntity, { id, tenantId: who.tenantId, openId: who.openId });
  }

  /** The identity's account with this username (case-insensitive). */
  findOwnByUsername(who: Identity, username: string): Promise<AccountEntity | null> {
    return this.tx.none
      .getRepository(AccountEntity)
      .createQueryBuilder('a')
      .where('a.tenant_id = :t AND a.open_id = :o AND lower(a.username) = lower(:u)', {
        t: who.tenantId,
        o: who.openId,
        u: username,
      })
      .getOne();
  }

  /** The identity's account. */
  findByIdentity(who: Identity): Promise<AccountEntity | null> {
    return this.tx.none.findOneBy(AccountEntity, { tenantId: who.tenantId, openId: who.openId });
  }

  /** Whether any account of the tenant has this username (case-insensitive). */
  usernameExists(tenantId: string, username: string): Promise<boolean> {
    return this.tx.none
      .getRepository(AccountEntity)
      .createQueryBuilder('a')
      .where('a.tenant_id = :t AND lower(a.username) = lower(:u)', { t: tenantId, u: username })
      .getExists();
  }

  /** Locks the identity's account with this id FOR UPDATE and returns it (null: none). */
  lockOwn(tx: Tx, who: Identity, id: string): Promise<AccountEntity | null> {
    return tx.getRepository(AccountEntity).findOne({
      where: { id, tenantId: who.tenantId, openId: who.openId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Locks an account row FOR UPDATE (whatever it holds). */
  async lock(tx: Tx, id: string): Promise<void> {
    await tx
      .getRepository(AccountEntity)
      .createQueryBuilder('a')
      .setLock('pessimistic_write')
      .where('a.id = :id', { id })
      .getOne();
  }

  /** Inserts or updates the row (its version raised by a change). */
  save(tx: Tx, account: AccountEntity): Promise<AccountEntity> {
    return tx.getRepository(AccountEntity).save(account);
  }

  /** Up to `take` accounts after the id `after` (from the first without it) in id order, deleted ones included. */
  pageById(tx: Tx, after: string | undefined, take: number): Promise<AccountEntity[]> {
    return tx.getRepository(AccountEntity).find({
      where: after === undefined ? {} : { id: MoreThan(after) },
      order: { id: 'ASC' },
      take,
      withDeleted: true,
    });
  }
}
