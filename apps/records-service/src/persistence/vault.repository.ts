import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { Transactions, Tx } from './transactions';
import { VaultEntity } from './vault.entity';

/** Queries and locks of vault rows. */
@Injectable()
export class VaultRepository {
  constructor(private readonly tx: Transactions) {}

  /**
   * Locks vault rows FOR UPDATE in id order (so two transactions locking the same
   * vaults cannot deadlock) and returns those that exist, in id order. Every change
   * that a vault's quotas or its own row depend on takes this lock first.
   */
  lock(tx: Tx, ids: string[]): Promise<VaultEntity[]> {
    return tx
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .where('v.id IN (:...ids)', { ids: [...new Set(ids)].sort() })
      .orderBy('v.id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
  }

  /**
   * Serialises vault creation per account (a transaction-scoped advisory lock), so the
   * owned-vaults quota holds when one account creates vaults concurrently.
   */
  async lockOwner(tx: Tx, tenantId: string, openId: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`vault-owner:${tenantId}:${openId}`]);
  }

  /**
   * Takes one more live-record place in the vault if it holds fewer than `max`: a
   * conditional increment of its counter. It locks the vault row until the transaction
   * ends, so callers make it their last statement. False: the vault is full (or gone).
   */
  async claimRecordPlace(tx: Tx, vaultId: string, max: number): Promise<boolean> {
    const claimed: unknown[] = await tx.query(
      'UPDATE vaults SET live_records = live_records + 1 WHERE id = $1 AND live_records < $2 RETURNING id',
      [vaultId, max],
    );
    // PostgreSQL UPDATE answers [rows, count] through TypeORM
    return Array.isArray(claimed[0]) && claimed[0].length === 1;
  }

  /** Whether another vault (of any tenant: inbox names are global) uses the inbox name. */
  emailUsernameTaken(emailUsername: string, exceptVaultId?: string, tx: Tx = this.tx.none): Promise<boolean> {
    const qb = tx
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .where('lower(v.email_username) = lower(:name)', { name: emailUsername });
    if (exceptVaultId) qb.andWhere('v.id <> :id', { id: exceptVaultId });
    return qb.getExists();
  }

  insert(tx: Tx, fields: Partial<VaultEntity>): Promise<VaultEntity> {
    return tx.save(tx.create(VaultEntity, fields));
  }

  async save(tx: Tx, vault: VaultEntity): Promise<void> {
    await tx.save(vault);
  }

  async clearDefault(tx: Tx, vaultIds: string[]): Promise<void> {
    if (vaultIds.length > 0) await tx.update(VaultEntity, { id: In(vaultIds) }, { isDefault: false });
  }

  /** Deletes the vault; its records, memberships, licences and files go with it (foreign keys). */
  async delete(tx: Tx, id: string): Promise<void> {
    await tx.delete(VaultEntity, { id });
  }
}
