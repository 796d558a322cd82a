import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Collaborators: every membership gets an id (the collaborator-id of the API), a vault
 * has exactly one owner, and the account directory (projection of user-service's
 * account events) resolves usernames and openIds of the tenant.
 */
export class Collaborators1763800000900 implements MigrationInterface {
  name = 'Collaborators1763800000900';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['vault_memberships', 'record_memberships']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid()`);
      await q.query(`CREATE UNIQUE INDEX ${table}_id_uq ON ${table} (id)`);
    }
    await q.query(
      `CREATE UNIQUE INDEX vault_memberships_one_owner_uq ON vault_memberships (vault_id) WHERE role = 'vault_owner'`,
    );
    await q.query(`CREATE INDEX record_memberships_caller_idx ON record_memberships (tenant_id, open_id)`);
    await q.query(`
      CREATE TABLE account_directory (
        tenant_id text NOT NULL,
        open_id text NOT NULL,
        account_id uuid NOT NULL,
        username text NOT NULL,
        first_name text,
        last_name text,
        active boolean NOT NULL,
        version bigint NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, open_id)
      )`);
    await q.query(`CREATE INDEX account_directory_username_idx ON account_directory (tenant_id, lower(username))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE account_directory`);
    await q.query(`DROP INDEX record_memberships_caller_idx`);
    await q.query(`DROP INDEX vault_memberships_one_owner_uq`);
    for (const table of ['vault_memberships', 'record_memberships']) {
      await q.query(`ALTER TABLE ${table} DROP COLUMN id`);
    }
  }
}
