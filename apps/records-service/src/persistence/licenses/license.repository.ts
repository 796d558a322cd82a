import { Injectable } from '@nestjs/common';
import { LicenseEntity } from './license.entity';
import { Transactions, Tx } from '@vault/platform/persistence';
import { preparedQuery } from '../entity-rows';

/** Licence rows of vaults. */
@Injectable()
export class LicenseRepository {
  constructor(private readonly tx: Transactions) {}

  /** The newest licence of a vault. */
  current(vaultId: string, tx: Tx = this.tx.none): Promise<LicenseEntity | null> {
    return tx.findOne(LicenseEntity, { where: { vaultId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  /** The plan id of the newest licence of a vault (undefined without one): plain SQL, read by every create. */
  async currentPlanId(vaultId: string, tx: Tx = this.tx.none): Promise<string | undefined> {
    const rows = await preparedQuery(
      tx,
      'vault_current_plan',
      'SELECT plan_id FROM vault_licenses WHERE vault_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1',
      [vaultId],
    );
    return rows[0]?.['plan_id'] as string | undefined;
  }

  /** The plan ids of the current licences of the vaults, one statement whatever their number. */
  async currentPlanIds(tx: Tx, vaultIds: string[]): Promise<string[]> {
    return [...(await this.currentPlanIdsByVault(vaultIds, tx)).values()];
  }

  /** The plan id of the current licence of each vault (vaults without a licence are absent), in one statement. */
  async currentPlanIdsByVault(vaultIds: string[], tx: Tx = this.tx.none): Promise<Map<string, string>> {
    if (vaultIds.length === 0) return new Map();
    const rows: { vaultId: string; planId: string }[] = await tx
      .getRepository(LicenseEntity)
      .createQueryBuilder('l')
      .select('DISTINCT ON (l.vault_id) l.vault_id', 'vaultId')
      .addSelect('l.plan_id', 'planId')
      .where('l.vault_id IN (:...vaultIds)', { vaultIds })
      .orderBy('l.vault_id')
      .addOrderBy('l.created_at', 'DESC')
      .addOrderBy('l.id', 'DESC')
      .getRawMany();
    return new Map(rows.map((r) => [r.vaultId, r.planId]));
  }

  /** Every licence of a vault, oldest first. */
  list(vaultId: string): Promise<LicenseEntity[]> {
    return this.tx.none.find(LicenseEntity, { where: { vaultId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  insert(tx: Tx, fields: Partial<LicenseEntity>): Promise<LicenseEntity> {
    return tx.save(tx.create(LicenseEntity, fields));
  }
}
