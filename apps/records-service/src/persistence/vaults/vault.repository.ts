import { Injectable } from '@nestjs/common';
import type { RecordRole, VaultRole } from '@vault/contracts';
import { In } from 'typeorm';
import { guestRolesSql } from '../access/access.repository';
import { VaultMembershipEntity } from '../memberships/membership.entity';
import { Transactions, Tx } from '@vault/platform/persistence';
import { VaultEntity } from './vault.entity';
import type { RowsSource } from '../entity-rows';

/** A vault an account sees with its roles there: a vault role, or else roles on some of its live records. */
export interface VisibleVault {
  vault: VaultEntity;
  vaultRole?: VaultRole;
  guestRoles: RecordRole[];
}

/** Which vaults a listing keeps: those the account owns, those it does not own, or all. */
export type Ownership = 'owned' | 'shared' | 'all';

/** Queries and locks of vault rows. */
@Injectable()
export class VaultRepository {
  constructor(private readonly tx: Transactions) {}

  /** Vaults by id, in one statement (those not found are absent). */
  async byIds(ids: string[]): Promise<Map<string, VaultEntity>> {
    if (ids.length === 0) return new Map();
    return new Map((await this.tx.none.findBy(VaultEntity, { id: In(ids) })).map((v) => [v.id, v]));
  }

  /**
   * The vaults of the tenant the account sees, oldest first: those it holds a vault role
   * on and those holding live records it holds a role on. `page` limits the answer to
   * one page and adds the number of all matches (-1 without `page`).
   */
  async listVisible(
    tenantId: string,
    openId: string,
    ownership: Ownership,
    page?: { offset: number; limit: number },
  ): Promise<[VisibleVault[], number]> {
    const qb = this.tx.none
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .leftJoin(VaultMembershipEntity, 'vm', 'vm.vault_id = v.id AND vm.open_id = :openId')
      .addSelect('vm.role', 'vault_role')
      .addSelect(`CASE WHEN vm.role IS NULL THEN ${guestRolesSql(':openId')} END`, 'guest_roles')
      .where('v.tenant_id = :tenantId')
      .andWhere('v.deleted_at IS NULL')
      .andWhere(
        `v.id IN (SELECT m.vault_id FROM vault_memberships m WHERE m.tenant_id = :tenantId AND m.open_id = :openId
          UNION SELECT r.vault_id FROM record_memberships g JOIN records r ON r.id = g.record_id AND r.status <> 'DELETED'
          WHERE g.tenant_id = :tenantId AND g.open_id = :openId)`,
      )
      .setParameters({ tenantId, openId })
      .orderBy('v.created_at', 'ASC')
      .addOrderBy('v.id', 'ASC');
    if (ownership === 'owned') qb.andWhere(`vm.role = 'vault_owner'`);
    if (ownership === 'shared') qb.andWhere(`vm.role IS DISTINCT FROM 'vault_owner'`);
    const total = page ? await qb.getCount() : -1;
    if (page) qb.offset(page.offset).limit(page.limit);
    const { entities, raw } = await qb.getRawAndEntities<{
      v_id: string;
      vault_role: VaultRole | null;
      guest_roles: RecordRole[] | null;
    }>();
    const roles = new Map(raw.map((r) => [r.v_id, r]));
    const rows = entities.map((vault) => {
      const r = roles.get(vault.id);
      return { vault, vaultRole: r?.vault_role ?? undefined, guestRoles: r?.guest_roles ?? [] };
    });
    return [rows, total];
  }

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
   * Locks FOR UPDATE, in id order like `lock`, the tenant's vaults where the account holds
   * a vault or a record membership (its ownerships included): ending its memberships then
   * waits for, and sees, any other member's change those vaults are under. The ids locked.
   */
  async lockWhereMember(tx: Tx, tenantId: string, openId: string): Promise<string[]> {
    const rows: { id: string }[] = await tx.query(
      `SELECT v.id FROM vaults v
        WHERE v.id IN (SELECT m.vault_id FROM vault_memberships m WHERE m.tenant_id = $1 AND m.open_id = $2
                       UNION
                       SELECT r.vault_id FROM record_memberships rm JOIN records r ON r.id = rm.record_id
                        WHERE rm.tenant_id = $1 AND rm.open_id = $2)
        ORDER BY v.id
        FOR UPDATE OF v`,
      [tenantId, openId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Serialises vault creation per account (a transaction-scoped advisory lock), so the
   * owned-vaults quota holds when one account creates vaults concurrently.
   */
  async lockOwner(tx: Tx, tenantId: string, openId: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`vault-owner:${tenantId}:${openId}`]);
  }

  /**
   * The claim of one more live-record place in the vault if it holds fewer than `max`: a
   * conditional increment of its counter under its row lock, as the first part of the creating
   * statement (RecordRepository.insertWithRole), which answers a row when it took a place and
   * none when the vault is full (or gone).
   */
  recordPlaceClaim(vaultId: string, max: number): RowsSource {
    if (!Number.isSafeInteger(max)) throw new RangeError(`a record limit must be an integer, got ${max}`);
    return {
      sql: (first) =>
        `UPDATE vaults SET live_records = live_records + 1 WHERE id = $${first}::uuid AND live_records < $${first + 1}::bigint RETURNING id`,
      params: [vaultId, max],
    };
  }

  /** Whether another live vault (of any tenant: inbox names are global) uses the inbox name. */
  emailUsernameTaken(emailUsername: string, exceptVaultId?: string, tx: Tx = this.tx.none): Promise<boolean> {
    const qb = tx
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .where('lower(v.email_username) = lower(:name)', { name: emailUsername })
      .andWhere('v.deleted_at IS NULL');
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

  /**
   * Schedules the removal, at `due`, of those of the vaults that are orphaned: their owner's
   * account is inactive in the account directory (deleted) and nobody else holds a role on
   * them (a vault membership, or a membership of a record that is not deleted: a guest of a
   * deleted record reaches nothing of the vault). Vaults already scheduled keep their time;
   * the ids scheduled now.
   */
  async scheduleDeletionOfOrphaned(tx: Tx, vaultIds: string[], due: Date): Promise<string[]> {
    if (vaultIds.length === 0) return [];
    const rows = (await tx.query(
      `UPDATE vaults v SET deletion_due_at = $2
        FROM vault_memberships o
        JOIN account_directory a ON a.tenant_id = o.tenant_id AND a.open_id = o.open_id AND NOT a.active
        WHERE v.id = ANY($1) AND v.deletion_due_at IS NULL
          AND o.vault_id = v.id AND o.role = 'vault_owner'
          AND NOT EXISTS (SELECT 1 FROM vault_memberships m WHERE m.vault_id = v.id AND m.open_id <> o.open_id)
          AND NOT EXISTS (SELECT 1 FROM record_memberships rm JOIN records r ON r.id = rm.record_id
                           WHERE r.vault_id = v.id AND r.status <> 'DELETED' AND rm.open_id <> o.open_id)
        RETURNING v.id`,
      [[...new Set(vaultIds)], due],
    )) as [{ id: string }[], number];
    return rows[0].map((r) => r.id);
  }

  /** Cancels the scheduled removal of the vault, if any. */
  async cancelDeletion(tx: Tx, id: string): Promise<void> {
    await tx.query(`UPDATE vaults SET deletion_due_at = NULL WHERE id = $1 AND deletion_due_at IS NOT NULL`, [id]);
  }

  /** Moves the scheduled removal of the vault to `at` (a legal hold or the retention period keeps it). */
  async postponeDeletion(tx: Tx, id: string, at: Date): Promise<void> {
    await tx.query(`UPDATE vaults SET deletion_due_at = $2 WHERE id = $1`, [id, at]);
  }

  /** Locks up to `limit` vaults whose scheduled removal is due (skipping those another instance holds). */
  async lockDueForDeletion(tx: Tx, now: Date, limit: number): Promise<VaultEntity[]> {
    return tx
      .getRepository(VaultEntity)
      .createQueryBuilder('v')
      .where('v.deletion_due_at <= :now', { now })
      .orderBy('v.deletion_due_at')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany();
  }
}
