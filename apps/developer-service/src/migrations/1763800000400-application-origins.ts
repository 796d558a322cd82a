import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Browser origins of a client application (docs/developer-api.md, "Browser origins"): the
 * serialized origins the gateway answers CORS for, registered in the bootstrap file.
 */
export class ApplicationOrigins1763800000400 implements MigrationInterface {
  name = 'ApplicationOrigins1763800000400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE applications ADD COLUMN allowed_origins text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE applications DROP COLUMN allowed_origins`);
  }
}
