import { Injectable } from '@nestjs/common';
import { Transactions, Tx } from '@vault/platform/persistence';

/** A vault's key row: the public recipient, and the secret key wrapped by a KEK (null once destroyed). */
export interface VaultKeyRow {
  vaultId: string;
  tenantId: string;
  recipient: string;
  kekId: string | null;
  wrappedKey: Buffer | null;
  destroyedAt: Date | null;
}

const COLUMNS = `vault_id AS "vaultId", tenant_id AS "tenantId", recipient, kek_id AS "kekId",
  wrapped_key AS "wrappedKey", destroyed_at AS "destroyedAt"`;

/** Queries and row locks of vault_keys. */
@Injectable()
export class VaultKeyRepository {
  constructor(private readonly tx: Transactions) {}

  async find(vaultId: string, tx: Tx = this.tx.none): Promise<VaultKeyRow | null> {
    const rows: VaultKeyRow[] = await tx.query(`SELECT ${COLUMNS} FROM vault_keys WHERE vault_id = $1`, [vaultId]);
    return rows[0] ?? null;
  }

  /** The tenant of a vault (live or trashed); null when there is no such vault. */
  async tenantOf(vaultId: string, tx: Tx = this.tx.none): Promise<string | null> {
    const rows: { tenantId: string }[] = await tx.query(`SELECT tenant_id AS "tenantId" FROM vaults WHERE id = $1`, [vaultId]);
    return rows[0]?.tenantId ?? null;
  }

  /** Stores a new key unless the vault already has one (a concurrent first use); returns the row that stays. */
  async insertIfAbsent(row: Omit<VaultKeyRow, 'destroyedAt'>, tx: Tx = this.tx.none): Promise<VaultKeyRow | null> {
    await tx.query(
      `INSERT INTO vault_keys (vault_id, tenant_id, recipient, kek_id, wrapped_key)
       SELECT id, tenant_id, $2, $3, $4 FROM vaults WHERE id = $1 AND tenant_id = $5
       ON CONFLICT (vault_id) DO NOTHING`,
      [row.vaultId, row.recipient, row.kekId, row.wrappedKey, row.tenantId],
    );
    return this.find(row.vaultId, tx);
  }

  /**
   * Locks up to `limit` live keys not wrapped with their tenant's active KEK (`tenantKeks`
   * maps tenants with their own KEK; the others use `defaultKek`), in vault id order after
   * `after`, skipping rows another instance holds.
   */
  lockStale(
    tx: Tx,
    stale: { tenantKeks: Record<string, string>; defaultKek: string; after: string | null },
    limit: number,
  ): Promise<VaultKeyRow[]> {
    return tx.query(
      `SELECT ${COLUMNS} FROM vault_keys
       WHERE destroyed_at IS NULL AND kek_id <> COALESCE($1::jsonb ->> tenant_id, $2)
         AND ($3::uuid IS NULL OR vault_id > $3::uuid)
       ORDER BY vault_id LIMIT $4 FOR UPDATE SKIP LOCKED`,
      [JSON.stringify(stale.tenantKeks), stale.defaultKek, stale.after, limit],
    );
  }

  async rewrap(tx: Tx, vaultId: string, kekId: string, wrappedKey: Buffer): Promise<void> {
    await tx.query(
      `UPDATE vault_keys SET kek_id = $2, wrapped_key = $3, rewrapped_at = now()
       WHERE vault_id = $1 AND destroyed_at IS NULL`,
      [vaultId, kekId, wrappedKey],
    );
  }

  /** Clears the wrapped key for good; returns whether a live key was destroyed. */
  async destroy(vaultId: string, tx: Tx = this.tx.none): Promise<boolean> {
    const [, affected]: [unknown, number] = await tx.query(
      `UPDATE vault_keys SET kek_id = NULL, wrapped_key = NULL, destroyed_at = now()
       WHERE vault_id = $1 AND destroyed_at IS NULL`,
      [vaultId],
    );
    return affected === 1;
  }

  /** Live keys per KEK id (rotation progress). */
  countByKek(tx: Tx = this.tx.none): Promise<{ kekId: string; count: number }[]> {
    return tx.query(
      `SELECT kek_id AS "kekId", count(*)::int AS count FROM vault_keys
       WHERE destroyed_at IS NULL GROUP BY kek_id ORDER BY kek_id`,
    );
  }
}
