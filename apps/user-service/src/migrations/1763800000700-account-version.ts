import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version per account, incremented by every change of the row: the ETag of account
 * reads and the If-Match of its writes (settings use their `revision`).
 */
export class AccountVersion1763800000700 implements MigrationInterface {
  name = 'AccountVersion1763800000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts ADD COLUMN version integer NOT NULL DEFAULT 1`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE accounts DROP COLUMN version`);
  }
}
