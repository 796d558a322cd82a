import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A version per vault and record, incremented by every change of the row: the ETag of
 * their reads and the If-Match of their writes (record files use their `revision`).
 */
export class ResourceVersions1763800000700 implements MigrationInterface {
  name = 'ResourceVersions1763800000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE vaults ADD COLUMN version integer NOT NULL DEFAULT 1`);
    await q.query(`ALTER TABLE records ADD COLUMN version integer NOT NULL DEFAULT 1`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE records DROP COLUMN version`);
    await q.query(`ALTER TABLE vaults DROP COLUMN version`);
  }
}
