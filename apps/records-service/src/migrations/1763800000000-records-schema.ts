import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Vaults, licences, memberships, catalogue tables, records and the event outbox. */
export class RecordsSchema1763800000000 implements MigrationInterface {
  name = 'RecordsSchema1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE vaults (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id text NOT NULL,
        name text NOT NULL,
        email_username text,
        profile_photo text,
        first_name text,
        last_name text,
        type text NOT NULL,
        is_default boolean NOT NULL DEFAULT false,
        editable boolean NOT NULL DEFAULT true,
        brand_code text,
        status text NOT NULL DEFAULT 'ACTIVE',
        active boolean NOT NULL DEFAULT true,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX vaults_tenant_idx ON vaults (tenant_id)`);
    await q.query(
      `CREATE UNIQUE INDEX vaults_email_username_uq ON vaults (lower(email_username)) WHERE email_username IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE vault_licenses (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        plan_id text NOT NULL,
        license_key text,
        sponsored boolean NOT NULL DEFAULT false,
        sponsor text,
        renews_on timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX vault_licenses_vault_idx ON vault_licenses (vault_id, created_at)`);

    await q.query(`
      CREATE TABLE vault_memberships (
        vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
        open_id text NOT NULL,
        tenant_id text NOT NULL,
        role text NOT NULL CHECK (role IN ('vault_owner','vault_editor','vault_viewer','vault_info')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (vault_id, open_id)
      )`);
    await q.query(`CREATE INDEX vault_memberships_caller_idx ON vault_memberships (tenant_id, open_id, role)`);

    await q.query(`
      CREATE TABLE record_types (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE,
        vault_type text NOT NULL,
        order_id int NOT NULL,
        logo text NOT NULL,
        display_value jsonb NOT NULL
      )`);
    await q.query(`
      CREATE TABLE record_subtypes (
        id uuid PRIMARY KEY,
        record_type_id uuid NOT NULL REFERENCES record_types(id),
        name text NOT NULL,
        order_id int NOT NULL,
        logo text NOT NULL,
        display_value jsonb NOT NULL,
        block_sections jsonb NOT NULL,
        UNIQUE (record_type_id, name)
      )`);

    await q.query(`
      CREATE TABLE records (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id text NOT NULL,
        vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text NOT NULL,
        unique_reference text,
        storage_location text,
        record_type_id uuid NOT NULL REFERENCES record_types(id),
        record_subtype_id uuid NOT NULL REFERENCES record_subtypes(id),
        record_subtype_other text,
        editable boolean,
        record_details jsonb NOT NULL DEFAULT '{}'::jsonb,
        status text NOT NULL DEFAULT 'ACTIVE'
          CHECK (status IN ('ACTIVE','INACTIVE','CLOSED','DRAFT','DELETED')),
        active boolean NOT NULL DEFAULT true,
        created_by text NOT NULL,
        last_modified_by text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX records_vault_idx ON records (vault_id, status)`);

    await q.query(`
      CREATE TABLE record_memberships (
        record_id uuid NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        open_id text NOT NULL,
        tenant_id text NOT NULL,
        role text NOT NULL CHECK (role IN ('rec_owner','rec_editor','rec_viewer','rec_info')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (record_id, open_id)
      )`);

    await q.query(`
      CREATE TABLE outbox_events (
        id uuid PRIMARY KEY,
        subject text NOT NULL,
        tenant_id text NOT NULL,
        vault_id uuid NOT NULL,
        payload jsonb NOT NULL,
        occurred_at timestamptz NOT NULL,
        published_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_events_unpublished_idx ON outbox_events (occurred_at) WHERE published_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of [
      'outbox_events',
      'record_memberships',
      'records',
      'record_subtypes',
      'record_types',
      'vault_memberships',
      'vault_licenses',
      'vaults',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${t}`);
    }
  }
}
