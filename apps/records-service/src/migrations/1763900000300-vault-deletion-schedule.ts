import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a vault whose owner deleted its account, and that nobody else holds a role on,
 * is removed (`deletion_due_at`, null for every other vault; docs/user-api.md, Account deletion).
 */
export class VaultDeletionSchedule1763900000300 implements MigrationInterface {
  name = 'VaultDeletionSchedule1763900000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE vaults ADD COLUMN deletion_due_at timestamptz`);
    await q.query(`CREATE INDEX vaults_deletion_due ON vaults (deletion_due_at) WHERE deletion_due_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX vaults_deletion_due`);
    await q.query(`ALTER TABLE vaults DROP COLUMN deletion_due_at`);
  }
}
