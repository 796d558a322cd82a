import { Injectable } from '@nestjs/common';
import type { RecordRole, VaultRole } from '@vault/contracts';
import { In, Not } from 'typeorm';
import { RecordMembershipEntity, VaultMembershipEntity } from './membership.entity';
import { Transactions, Tx } from '@vault/platform/persistence';
import { plannedQuery } from '../entity-rows';

/** A member of a record as search items list it. */
export interface Contributor {
  openId: string;
  role: RecordRole;
  firstName: string | null;
  lastName: string | null;
}

/** Who holds which role on vaults and records. */
@Injectable()
export class MembershipRepository {
  constructor(private readonly tx: Transactions) {}

  /**
   * The members of each record, the owner first, then in the order they were added, with
   * their names from the account directory (null when it does not know the account): the
   * one place contributors are read.
   */
  async contributors(recordIds: string[]): Promise<Map<string, Contributor[]>> {
    const out = new Map<string, Contributor[]>();
    if (recordIds.length === 0) return out;
    // planned at each search: a plan kept from when record_memberships was small scans the
    // whole table once it has grown (38 ms at 20,000 rows against 0.8 ms by its key)
    const rows = await plannedQuery<Contributor & { recordId: string }>(
      this.tx.none,
      `SELECT m.record_id AS "recordId", m.open_id AS "openId", m.role,
              a.first_name AS "firstName", a.last_name AS "lastName"
       FROM record_memberships m
       LEFT JOIN account_directory a ON a.tenant_id = m.tenant_id AND a.open_id = m.open_id
       WHERE m.record_id = ANY($1)
       ORDER BY (m.role = 'rec_owner') DESC, m.created_at, m.open_id`,
      [recordIds],
    );
    for (const { recordId, ...c } of rows) out.set(recordId, [...(out.get(recordId) ?? []), c]);
    return out;
  }

  /** Ids of the live vaults an account owns in its tenant (those in the trash are not counted). */
  async ownedVaultIds(tx: Tx, tenantId: string, openId: string): Promise<string[]> {
    const rows: { vaultId: string }[] = await tx.query(
      `SELECT m.vault_id AS "vaultId" FROM vault_memberships m JOIN vaults v ON v.id = m.vault_id AND v.deleted_at IS NULL
        WHERE m.tenant_id = $1 AND m.open_id = $2 AND m.role = 'vault_owner'`,
      [tenantId, openId],
    );
    return rows.map((r) => r.vaultId);
  }

  /** Other vaults owned by the owners of this vault. */
  async ownersOtherVaults(tx: Tx, vault: { id: string; tenantId: string }): Promise<string[]> {
    const owners = await tx.find(VaultMembershipEntity, { where: { vaultId: vault.id, role: 'vault_owner' } });
    if (owners.length === 0) return [];
    const rows = await tx.find(VaultMembershipEntity, {
      where: {
        tenantId: vault.tenantId,
        openId: In(owners.map((o) => o.openId)),
        role: 'vault_owner',
        vaultId: Not(vault.id),
      },
    });
    return rows.map((r) => r.vaultId);
  }

  async grantVaultRole(tx: Tx, vault: { id: string; tenantId: string }, openId: string, role: VaultRole): Promise<void> {
    await tx.insert(VaultMembershipEntity, { vaultId: vault.id, tenantId: vault.tenantId, openId, role });
  }

  async grantRecordRole(tx: Tx, record: { id: string; tenantId: string }, openId: string, role: RecordRole): Promise<void> {
    await tx.insert(RecordMembershipEntity, { recordId: record.id, tenantId: record.tenantId, openId, role });
  }
}
