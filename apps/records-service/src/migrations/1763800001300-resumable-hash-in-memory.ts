import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SHA-256 of a resumable upload runs in memory on the instance receiving its bytes
 * (node:crypto); an upload continued elsewhere is hashed from storage once complete.
 * The saved hash state of each chunk is gone: uploads open across this migration
 * complete the same way, their file read back once.
 */
export class ResumableHashInMemory1763800001300 implements MigrationInterface {
  name = 'ResumableHashInMemory1763800001300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE resumable_uploads DROP COLUMN hash_state`);
  }

  async down(q: QueryRunner): Promise<void> {
    // the older code continues the saved state: an upload open across the downgrade has none
    // and would get the digest of its later bytes only, so it ends (its bytes stay queued for removal)
    await q.query(`DELETE FROM resumable_uploads`);
    await q.query(`ALTER TABLE resumable_uploads ADD COLUMN hash_state bytea`);
  }
}
