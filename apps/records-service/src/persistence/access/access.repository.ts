import { Injectable } from '@nestjs/common';
import { RECORD_ROLES, type RecordRole, type VaultRole } from '@vault/contracts';
import { RecordEntity } from '../records/record.entity';
import { Transactions } from '@vault/platform/persistence';
import { VaultEntity } from '../vaults/vault.entity';
import { preparedQuery, Row } from '../entity-rows';

/** A vault (and record) of a request with the caller's roles on them. */
export interface ResolvedTarget {
  vault: VaultEntity;
  vaultRole?: VaultRole;
  record?: RecordEntity;
  recordRole?: RecordRole;
  /**
   * Without a vault role: the caller's roles on live records of the vault (a guest of
   * those records), distinct, highest first; empty when it has none.
   */
  guestRoles?: RecordRole[];
}

/**
 * SQL of the distinct roles the account `openId` (a parameter such as `$3`) holds on the
 * live records of the vault aliased `v`, highest first: a text[] ({} when none).
 */
export const guestRolesSql = (openId: string) => `ARRAY(
  SELECT g.role FROM record_memberships g
  JOIN records gr ON gr.id = g.record_id AND gr.status <> 'DELETED'
  WHERE g.open_id = ${openId} AND g.tenant_id = v.tenant_id AND gr.vault_id = v.id
  GROUP BY g.role
  ORDER BY array_position(ARRAY[${RECORD_ROLES.map((r) => `'${r}'`).join(', ')}], g.role))`;

/** What every authorised request reads first, in one statement. */
@Injectable()
export class AccessRepository {
  private statements?: Prepared;

  constructor(private readonly tx: Transactions) {}

  /**
   * The vault of the tenant with the caller's role on it and, when `recordId` is given,
   * the vault's live record of that id with the caller's role on it; without a vault role
   * and without `recordId`, the caller's roles on the vault's live records (guestRoles).
   * One SELECT with joins (a second one for guestRoles). Null when the tenant has no such
   * live vault (a trashed one is not found).
   */
  async resolve(tenantId: string, openId: string, vaultId: string, recordId?: string): Promise<ResolvedTarget | null> {
    this.statements ??= this.prepare();
    const { withRecord, vaultOnly, guestRoles, vault, record } = this.statements;
    const rows = recordId
      ? await this.read('access_with_record', withRecord, [vaultId, tenantId, openId, recordId])
      : await this.read('access_vault_only', vaultOnly, [vaultId, tenantId, openId]);
    const row = rows[0];
    if (!row) return null;
    const found: ResolvedTarget = { vault: vault(row), vaultRole: (row['vm_role'] as VaultRole | null) ?? undefined };
    if (!found.vaultRole && !recordId) {
      const [guest] = await this.read('access_guest_roles', guestRoles, [vaultId, tenantId, openId]);
      found.guestRoles = (guest?.['guest_roles'] as RecordRole[] | undefined) ?? [];
    }
    if (row['r_id'] !== null && row['r_id'] !== undefined) {
      found.record = record(row);
      found.recordRole = (row['rm_role'] as RecordRole | null) ?? undefined;
    }
    return found;
  }

  /** The access read as a named prepared statement (preparedQuery): planned once per connection, not per request. */
  private read(name: string, text: string, values: unknown[]): Promise<Row[]> {
    return preparedQuery(this.tx.none, name, text, values);
  }

  /**
   * The two statements as plain SQL, written once from the entities' column metadata
   * (this is the hottest read of the service: TypeORM's query building and hydration
   * would cost more than the query itself), and the row-to-entity mappers.
   */
  private prepare(): Prepared {
    const ds = this.tx.none.connection;
    const vaultColumns = ds.getMetadata(VaultEntity).columns;
    const recordColumns = ds.getMetadata(RecordEntity).columns;
    const select = (alias: string, columns: typeof vaultColumns) =>
      columns.map((c) => `${alias}."${c.databaseName}" AS "${alias}_${c.databaseName}"`).join(', ');
    // each column's property and its key in the row, built once (not a string per column per read)
    const mapper = <T>(alias: string, columns: typeof vaultColumns, create: () => T) => {
      const pairs = columns.map((c) => [c.propertyName, `${alias}_${c.databaseName}`] as const);
      return (row: Row): T => {
        const entity = create() as Record<string, unknown>;
        for (const [property, key] of pairs) entity[property] = row[key];
        return entity as T;
      };
    };
    return {
      vaultOnly: `SELECT ${select('v', vaultColumns)}, vm.role AS vm_role
        FROM vaults v
        LEFT JOIN vault_memberships vm ON vm.vault_id = v.id AND vm.open_id = $3
        WHERE v.id = $1 AND v.tenant_id = $2 AND v.deleted_at IS NULL`,
      // a second statement, for callers without a vault role only: kept out of the hot read,
      // whose plan it would make several times dearer to build
      guestRoles: `SELECT ${guestRolesSql('$3')} AS guest_roles FROM vaults v WHERE v.id = $1 AND v.tenant_id = $2`,
      withRecord: `SELECT ${select('v', vaultColumns)}, vm.role AS vm_role, ${select('r', recordColumns)}, rm.role AS rm_role
        FROM vaults v
        LEFT JOIN vault_memberships vm ON vm.vault_id = v.id AND vm.open_id = $3
        LEFT JOIN records r ON r.id = $4 AND r.vault_id = v.id AND r.tenant_id = v.tenant_id AND r.status <> 'DELETED'
        LEFT JOIN record_memberships rm ON rm.record_id = r.id AND rm.open_id = $3
        WHERE v.id = $1 AND v.tenant_id = $2 AND v.deleted_at IS NULL`,
      vault: mapper('v', vaultColumns, () => new VaultEntity()),
      record: mapper('r', recordColumns, () => new RecordEntity()),
    };
  }
}

interface Prepared {
  vaultOnly: string;
  guestRoles: string;
  withRecord: string;
  vault: (row: Row) => VaultEntity;
  record: (row: Row) => RecordEntity;
}
