import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants, applications, organisation users, signing keys and the login throttle table. */
export class DeveloperSchema1763800000000 implements MigrationInterface {
  name = 'DeveloperSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id varchar(128) PRIMARY KEY,
        name varchar(256) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE applications (
        client_id varchar(128) PRIMARY KEY,
        tenant_id varchar(128) NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        secret_hash text NOT NULL,
        test_mode boolean NOT NULL DEFAULT false,
        redirect_uris text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX applications_tenant_idx ON applications (tenant_id)`);
    await q.query(`
      CREATE TABLE organisation_users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id varchar(128) NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        username varchar(320) NOT NULL,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX organisation_users_tenant_username_uq ON organisation_users (tenant_id, lower(username))`);
    await q.query(`
      CREATE TABLE signing_keys (
        kid varchar(64) PRIMARY KEY,
        alg varchar(16) NOT NULL,
        public_jwk jsonb NOT NULL,
        private_jwk text NOT NULL,
        encrypted boolean NOT NULL DEFAULT false,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX signing_keys_one_active_uq ON signing_keys ((true)) WHERE active`);
    // Shape expected by rate-limiter-flexible's Postgres store (shared by every replica).
    await q.query(`
      CREATE TABLE auth_throttle (
        key varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE auth_throttle`);
    await q.query(`DROP TABLE signing_keys`);
    await q.query(`DROP TABLE organisation_users`);
    await q.query(`DROP TABLE applications`);
    await q.query(`DROP TABLE tenants`);
  }
}
