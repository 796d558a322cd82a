import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sign-in time of a refresh-token family (docs/developer-api.md, Token format): the
 * `auth_time` of the sign-in's access token, in seconds since the epoch, which every token
 * refreshed from the family carries as well. Families stored before it have none; their
 * tokens carry the family's `created_at` instead.
 */
export class FamilySignInTime1764700000000 implements MigrationInterface {
  name = 'FamilySignInTime1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refresh_token_families ADD COLUMN signed_in_at bigint`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE refresh_token_families DROP COLUMN signed_in_at`);
  }
}
