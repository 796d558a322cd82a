import { Injectable } from '@nestjs/common';
import { AccountDirectoryEntity } from './account-directory.entity';
import { Transactions, Tx } from '@vault/platform/persistence';

/** The state of one account as an account event carries it. */
export type DirectoryAccount = Omit<AccountDirectoryEntity, 'updatedAt'>;

/** Names of an account, for collaborator views and contributors. */
export type AccountNames = Pick<AccountDirectoryEntity, 'username' | 'firstName' | 'lastName'>;

/** Queries of the account directory (the projection of user-service's account events). */
@Injectable()
export class AccountDirectoryRepository {
  constructor(private readonly tx: Transactions) {}

  /** The active account of the tenant with this username (case-insensitive) or openId. */
  findActive(tenantId: string, by: { username?: string; openId?: string }): Promise<AccountDirectoryEntity | null> {
    const qb = this.tx.none
      .getRepository(AccountDirectoryEntity)
      .createQueryBuilder('a')
      .where('a.tenant_id = :tenantId AND a.active', { tenantId });
    if (by.openId !== undefined) qb.andWhere('a.open_id = :openId', { openId: by.openId });
    if (by.username !== undefined)
      qb.andWhere('lower(a.username) = lower(:username)', {
        username: by.username,
      });
    return qb.orderBy('a.updated_at', 'DESC').getOne();
  }

  /** Names of the accounts of a tenant, by openId (accounts the directory lacks are absent). */
  async names(tenantId: string, openIds: string[], tx: Tx = this.tx.none): Promise<Map<string, AccountNames>> {
    const out = new Map<string, AccountNames>();
    if (openIds.length === 0) return out;
    const rows = await tx
      .getRepository(AccountDirectoryEntity)
      .createQueryBuilder('a')
      .where('a.tenant_id = :tenantId AND a.open_id IN (:...openIds)', {
        tenantId,
        openIds: [...new Set(openIds)],
      })
      .getMany();
    for (const r of rows)
      out.set(r.openId, {
        username: r.username,
        firstName: r.firstName,
        lastName: r.lastName,
      });
    return out;
  }

  /** Whether the directory knows the account and it is inactive (deleted). */
  async isInactive(tx: Tx, tenantId: string, openId: string): Promise<boolean> {
    return tx.getRepository(AccountDirectoryEntity).exists({ where: { tenantId, openId, active: false } });
  }

  /**
   * Stores the account's state unless the directory already holds the same or a newer
   * version (events may arrive twice or out of order). True when it was stored.
   */
  async apply(tx: Tx, a: DirectoryAccount): Promise<boolean> {
    const rows: unknown[] = await tx.query(
      `INSERT INTO account_directory (tenant_id, open_id, account_id, username, first_name, last_name, active, version, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
       ON CONFLICT (tenant_id, open_id) DO UPDATE SET
         account_id = EXCLUDED.account_id, username = EXCLUDED.username, first_name = EXCLUDED.first_name,
         last_name = EXCLUDED.last_name, active = EXCLUDED.active, version = EXCLUDED.version, updated_at = now()
       WHERE account_directory.version < EXCLUDED.version
       RETURNING open_id`,
      [a.tenantId, a.openId, a.accountId, a.username, a.firstName, a.lastName, a.active, a.version],
    );
    return rows.length === 1;
  }
}
