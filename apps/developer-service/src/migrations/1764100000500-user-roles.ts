import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenant roles of organisation users (docs/developer-api.md, Bootstrap file): `compliance`
 * marks a tenant's compliance officer, who manages legal holds in the records module; the
 * token carries them in its `roles` claim.
 */
export class UserRoles1764100000500 implements MigrationInterface {
  name = 'UserRoles1764100000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organisation_users ADD COLUMN roles text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organisation_users DROP COLUMN roles`);
  }
}
