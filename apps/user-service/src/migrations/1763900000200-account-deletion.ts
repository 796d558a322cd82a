import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When an account was deleted by its holder (null: not deleted). A deleted account's
 * row stays (inactive, its personal fields erased) and keeps its identity's binding:
 * reads skip it, the unique (tenant_id, open_id) still refuses a second account.
 */
export class AccountDeletion1763900000200 implements MigrationInterface {
  name = 'AccountDeletion1763900000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts ADD COLUMN deleted_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts DROP COLUMN deleted_at`);
  }
}
