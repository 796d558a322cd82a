import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Record searches and their pages read a vault's records on an index in result order. */
export class RecordSearchOrder1763800000500 implements MigrationInterface {
  name = 'RecordSearchOrder1763800000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX records_vault_updated_idx ON records (vault_id, updated_at DESC, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX records_vault_updated_idx`);
  }
}
