import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Scheduled signing key rotation: when each key starts signing (`activates_at`; a key is
 * published in the JWKS before then) and when it stopped (`retired_at`; it stays
 * published until its last token has expired).
 */
export class SigningKeyRotation1763800000100 implements MigrationInterface {
  name = 'SigningKeyRotation1763800000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE signing_keys ADD COLUMN activates_at timestamptz NOT NULL DEFAULT now()`);
    await q.query(`UPDATE signing_keys SET activates_at = created_at`);
    await q.query(`ALTER TABLE signing_keys ADD COLUMN retired_at timestamptz`);
    await q.query(`UPDATE signing_keys SET retired_at = now() WHERE NOT active`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE signing_keys DROP COLUMN retired_at`);
    await q.query(`ALTER TABLE signing_keys DROP COLUMN activates_at`);
  }
}
