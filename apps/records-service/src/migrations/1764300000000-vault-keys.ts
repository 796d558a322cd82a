import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One key per vault (an X25519 key pair in the age format), its secret half stored only
 * wrapped by a tenant key-encryption key (`kek_id` names it in the KMS). Destroying it
 * (crypto-erase) clears the wrapped key and keeps the row as a tombstone, so the vault
 * cannot silently get a new key; deleting the vault row removes it too.
 */
export class VaultKeys1764300000000 implements MigrationInterface {
  name = 'VaultKeys1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE vault_keys (
        vault_id uuid PRIMARY KEY REFERENCES vaults(id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        recipient text NOT NULL,
        kek_id text,
        wrapped_key bytea,
        created_at timestamptz NOT NULL DEFAULT now(),
        rewrapped_at timestamptz,
        destroyed_at timestamptz,
        CONSTRAINT vault_keys_destroyed_ck
          CHECK ((destroyed_at IS NULL) = (kek_id IS NOT NULL AND wrapped_key IS NOT NULL))
      )`);
    await q.query(`CREATE INDEX vault_keys_kek_idx ON vault_keys (kek_id) WHERE destroyed_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE vault_keys`);
  }
}
