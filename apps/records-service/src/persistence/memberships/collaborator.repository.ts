import { Injectable } from '@nestjs/common';
import type { RecordRole, VaultRole } from '@vault/contracts';
import { Transactions, Tx } from '@vault/platform/persistence';

/** Which memberships a query is about: a vault's or a record's. */
export type MembershipScope = 'vault' | 'record';

const TABLES: Record<MembershipScope, { table: string; key: string }> = {
  vault: { table: 'vault_memberships', key: 'vault_id' },
  record: { table: 'record_memberships', key: 'record_id' },
};

/** A membership of a vault or record, with the account's names from the directory (null when unknown). */
export interface MemberRow {
  id: string;
  openId: string;
  role: VaultRole | RecordRole;
  createdAt: Date;
  username: string | null;
  firstName: string | null;
  lastName: string | null;
}

/** A membership ended because its account left the tenant's directory. */
export interface EndedMembership {
  scope: MembershipScope;
  id: string;
  role: VaultRole | RecordRole;
  vaultId: string;
  vaultName: string;
  recordId: string | null;
  recordName: string | null;
}

const MEMBER_COLUMNS = `m.id, m.open_id AS "openId", m.role, m.created_at AS "createdAt",
  a.username, a.first_name AS "firstName", a.last_name AS "lastName"`;

/**
 * Collaborators: memberships of vaults and records with their ids, read with the
 * account directory, and their changes. Callers hold the vault row lock
 * (VaultRepository.lock) while they change the members of a vault or of its records.
 */
@Injectable()
export class CollaboratorRepository {
  constructor(private readonly tx: Transactions) {}

  /** Members of a vault or record: the owner first, then in the order they were added. */
  list(scope: MembershipScope, targetId: string, tx: Tx = this.tx.none): Promise<MemberRow[]> {
    const { table, key } = TABLES[scope];
    return tx.query(
      `SELECT ${MEMBER_COLUMNS} FROM ${table} m
       LEFT JOIN account_directory a ON a.tenant_id = m.tenant_id AND a.open_id = m.open_id
       WHERE m.${key} = $1
       ORDER BY (m.role IN ('vault_owner', 'rec_owner')) DESC, m.created_at, m.id`,
      [targetId],
    );
  }

  /** One member by its collaborator id, or null. */
  async byId(tx: Tx, scope: MembershipScope, targetId: string, id: string): Promise<MemberRow | null> {
    const { table, key } = TABLES[scope];
    const rows: MemberRow[] = await tx.query(
      `SELECT ${MEMBER_COLUMNS} FROM ${table} m
       LEFT JOIN account_directory a ON a.tenant_id = m.tenant_id AND a.open_id = m.open_id
       WHERE m.${key} = $1 AND m.id = $2`,
      [targetId, id],
    );
    return rows[0] ?? null;
  }

  /**
   * Members by their collaborator ids, each with the vault or record it belongs to
   * (`targetId`), in one statement; members not found (or not of that target) are absent.
   */
  async byIds(scope: MembershipScope, members: { targetId: string; id: string }[]): Promise<Map<string, MemberRow>> {
    if (members.length === 0) return new Map();
    const { table, key } = TABLES[scope];
    const rows: MemberRow[] = await this.tx.none.query(
      `SELECT ${MEMBER_COLUMNS} FROM ${table} m
       LEFT JOIN account_directory a ON a.tenant_id = m.tenant_id AND a.open_id = m.open_id
       WHERE (m.${key}, m.id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`,
      [members.map((m) => m.targetId), members.map((m) => m.id)],
    );
    return new Map(rows.map((r) => [r.id, r]));
  }

  /** Whether the account already holds a role on the vault or record. */
  async isMember(tx: Tx, scope: MembershipScope, targetId: string, openId: string): Promise<boolean> {
    const { table, key } = TABLES[scope];
    const rows: unknown[] = await tx.query(`SELECT 1 FROM ${table} WHERE ${key} = $1 AND open_id = $2`, [targetId, openId]);
    return rows.length > 0;
  }

  /** Adds a member; answers its id and creation time. */
  async add(
    tx: Tx,
    scope: MembershipScope,
    target: { id: string; tenantId: string },
    openId: string,
    role: VaultRole | RecordRole,
  ): Promise<{ id: string; createdAt: Date }> {
    const { table, key } = TABLES[scope];
    const rows: { id: string; createdAt: Date }[] = await tx.query(
      `INSERT INTO ${table} (${key}, tenant_id, open_id, role) VALUES ($1, $2, $3, $4)
       RETURNING id, created_at AS "createdAt"`,
      [target.id, target.tenantId, openId, role],
    );
    return rows[0];
  }

  async setRole(tx: Tx, scope: MembershipScope, id: string, role: VaultRole | RecordRole): Promise<void> {
    await tx.query(`UPDATE ${TABLES[scope].table} SET role = $2 WHERE id = $1`, [id, role]);
  }

  async remove(tx: Tx, scope: MembershipScope, id: string): Promise<void> {
    await tx.query(`DELETE FROM ${TABLES[scope].table} WHERE id = $1`, [id]);
  }

  /** Ends the account's roles on the records of a vault; answers them with the record names. */
  async removeRecordRoles(
    tx: Tx,
    vaultId: string,
    openId: string,
  ): Promise<(MemberRow & { recordId: string; recordName: string })[]> {
    // DELETE … RETURNING answers [rows, count] through TypeORM
    const [rows]: [(MemberRow & { recordId: string; recordName: string })[], number] = await tx.query(
      `DELETE FROM record_memberships m USING records r
       WHERE m.record_id = r.id AND r.vault_id = $1 AND m.open_id = $2
       RETURNING m.id, m.open_id AS "openId", m.role, m.created_at AS "createdAt", NULL AS username,
                 NULL AS "firstName", NULL AS "lastName", r.id AS "recordId", r.name AS "recordName"`,
      [vaultId, openId],
    );
    return rows;
  }

  /**
   * Ends every membership of an account in its tenant except vault ownerships (a vault
   * is never left without its owner), and answers what it ended with the vault and
   * record names their events need.
   */
  async endAll(tx: Tx, tenantId: string, openId: string): Promise<EndedMembership[]> {
    // DELETE … RETURNING answers [rows, count] through TypeORM
    const [vaultRows]: [EndedMembership[], number] = await tx.query(
      `DELETE FROM vault_memberships m USING vaults v
       WHERE m.vault_id = v.id AND m.tenant_id = $1 AND m.open_id = $2 AND m.role <> 'vault_owner'
       RETURNING 'vault' AS scope, m.id, m.role, v.id AS "vaultId", v.name AS "vaultName",
                 NULL::uuid AS "recordId", NULL::text AS "recordName"`,
      [tenantId, openId],
    );
    const [recordRows]: [EndedMembership[], number] = await tx.query(
      `DELETE FROM record_memberships m USING records r, vaults v
       WHERE m.record_id = r.id AND r.vault_id = v.id AND m.tenant_id = $1 AND m.open_id = $2
       RETURNING 'record' AS scope, m.id, m.role, v.id AS "vaultId", v.name AS "vaultName",
                 r.id AS "recordId", r.name AS "recordName"`,
      [tenantId, openId],
    );
    return [...vaultRows, ...recordRows];
  }
}
