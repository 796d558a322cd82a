import { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, settings, agreements, MFA codes and invitations. */
export class UserSchema1763800000000 implements MigrationInterface {
  name = 'UserSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        open_id text NOT NULL,
        username text NOT NULL,
        first_name text NOT NULL,
        last_name text NOT NULL,
        profile_photo text,
        date_of_birth date,
        marital_status text,
        gender text,
        primary_residence jsonb,
        emails jsonb NOT NULL DEFAULT '[]'::jsonb,
        phones jsonb NOT NULL DEFAULT '[]'::jsonb,
        referral_code text,
        cobrand_id text,
        default_team text,
        customer_id text,
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT accounts_tenant_open_id_key UNIQUE (tenant_id, open_id)
      )`);
    await q.query(`CREATE UNIQUE INDEX accounts_tenant_username_key ON accounts (tenant_id, lower(username))`);
    await q.query(`
      CREATE TABLE account_settings (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
        notification_method text NOT NULL,
        communication_language text NOT NULL,
        preferred_language text NOT NULL,
        country text NOT NULL,
        mfa_disabled boolean NOT NULL,
        mfa_mode text NOT NULL,
        revision integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE agreements (
        id uuid PRIMARY KEY,
        seq bigserial NOT NULL,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        locale text NOT NULL,
        type text NOT NULL,
        version text NOT NULL,
        consent boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX agreements_account_type_idx ON agreements (account_id, type, seq DESC)`);
    await q.query(`
      CREATE TABLE mfa_codes (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        channel text NOT NULL,
        destination_id text NOT NULL,
        code_hash text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX mfa_codes_account_idx ON mfa_codes (account_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE invitations (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL,
        invited_by text NOT NULL,
        email text NOT NULL,
        first_name text,
        last_name text,
        phone text,
        code_hash text NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz,
        consumed_by uuid REFERENCES accounts(id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE invitations`);
    await q.query(`DROP TABLE mfa_codes`);
    await q.query(`DROP TABLE agreements`);
    await q.query(`DROP TABLE account_settings`);
    await q.query(`DROP TABLE accounts`);
  }
}
