import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refresh tokens (docs/developer-api.md, "Refresh tokens"): one family per sign-in, bound to
 * tenant, application and user, revoked as a whole; each token stored as its SHA-256 only.
 */
export class RefreshTokens1763800000300 implements MigrationInterface {
  name = 'RefreshTokens1763800000300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE refresh_token_families (
        id uuid PRIMARY KEY,
        tenant_id varchar(128) NOT NULL,
        client_id varchar(128) NOT NULL,
        user_id uuid NOT NULL,
        open_id varchar(300) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        revoked_reason varchar(32)
      )`,
    );
    await q.query(`CREATE INDEX refresh_token_families_identity ON refresh_token_families (tenant_id, open_id)`);
    await q.query(`CREATE INDEX refresh_token_families_expiry ON refresh_token_families (expires_at)`);
    await q.query(
      `CREATE TABLE refresh_tokens (
        token_hash bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
        family_id uuid NOT NULL REFERENCES refresh_token_families (id) ON DELETE CASCADE,
        access_token_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        spent_at timestamptz
      )`,
    );
    await q.query(`CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)`);
    await q.query(`CREATE INDEX refresh_tokens_access_token ON refresh_tokens (access_token_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE refresh_tokens`);
    await q.query(`DROP TABLE refresh_token_families`);
  }
}
