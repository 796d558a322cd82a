import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The trash: a deleted vault, record or file keeps its row with `deleted_at`, `deleted_by`
 * and `purge_at` (when the purger removes it) until it is purged; a live row has
 * `deleted_at IS NULL` (docs/records-api.md, Trash). A trashed record also keeps
 * `status = 'DELETED'` as before, and `status_before_delete` to restore; records deleted
 * before this migration become trashed ones due at once (their files were already gone).
 * A trashed file keeps its name, and a trashed vault its inbox name, so their unique indexes
 * cover live rows only.
 * Legal holds: named cases on a vault, a record or a file that keep it from purge.
 */
export class Trash1764100000000 implements MigrationInterface {
  name = 'Trash1764100000000';

  async up(q: QueryRunner): Promise<void> {
    for (const table of ['vaults', 'records', 'record_files']) {
      await q.query(`ALTER TABLE ${table} ADD COLUMN deleted_at timestamptz, ADD COLUMN deleted_by text,
        ADD COLUMN purge_at timestamptz`);
      await q.query(`CREATE INDEX ${table}_purge_due ON ${table} (purge_at) WHERE deleted_at IS NOT NULL`);
    }
    // a trashed vault's inbox name is free for others (a restore without it when taken meanwhile)
    await q.query(`DROP INDEX vaults_email_username_uq`);
    await q.query(`CREATE UNIQUE INDEX vaults_email_username_uq ON vaults (lower(email_username))
      WHERE email_username IS NOT NULL AND deleted_at IS NULL`);
    await q.query(`ALTER TABLE records ADD COLUMN status_before_delete text`);
    await q.query(`UPDATE records SET deleted_at = updated_at, deleted_by = last_modified_by, purge_at = now(),
      status_before_delete = 'ACTIVE' WHERE status = 'DELETED'`);
    await q.query(`ALTER TABLE records ADD CONSTRAINT records_trash_status
      CHECK ((status = 'DELETED') = (deleted_at IS NOT NULL))`);
    await q.query(`CREATE INDEX records_trash_of_vault ON records (vault_id, deleted_at) WHERE deleted_at IS NOT NULL`);
    await q.query(`ALTER TABLE record_files DROP CONSTRAINT record_files_name_uq`);
    await q.query(`CREATE UNIQUE INDEX record_files_name_uq ON record_files (record_id, file_name) WHERE deleted_at IS NULL`);
    await q.query(`CREATE INDEX record_files_trash_of_record ON record_files (record_id) WHERE deleted_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE legal_holds (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id text NOT NULL,
        vault_id uuid NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
        record_id uuid REFERENCES records(id) ON DELETE CASCADE,
        file_id uuid,
        name text NOT NULL,
        reason text,
        placed_by text NOT NULL,
        placed_at timestamptz NOT NULL DEFAULT now(),
        released_by text,
        released_at timestamptz
      )`);
    await q.query(`CREATE INDEX legal_holds_active ON legal_holds (vault_id) WHERE released_at IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE legal_holds`);
    await q.query(`DROP INDEX record_files_trash_of_record`);
    await q.query(`DELETE FROM record_files WHERE deleted_at IS NOT NULL`);
    await q.query(`DROP INDEX record_files_name_uq`);
    await q.query(`ALTER TABLE record_files ADD CONSTRAINT record_files_name_uq UNIQUE (record_id, file_name)`);
    await q.query(`DROP INDEX records_trash_of_vault`);
    await q.query(`ALTER TABLE records DROP CONSTRAINT records_trash_status`);
    await q.query(`ALTER TABLE records DROP COLUMN status_before_delete`);
    await q.query(`DELETE FROM vaults WHERE deleted_at IS NOT NULL`);
    await q.query(`DROP INDEX vaults_email_username_uq`);
    await q.query(
      `CREATE UNIQUE INDEX vaults_email_username_uq ON vaults (lower(email_username)) WHERE email_username IS NOT NULL`,
    );
    for (const table of ['vaults', 'records', 'record_files']) {
      await q.query(`DROP INDEX ${table}_purge_due`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN deleted_at, DROP COLUMN deleted_by, DROP COLUMN purge_at`);
    }
  }
}
