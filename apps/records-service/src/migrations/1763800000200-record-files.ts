import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Record files (metadata; bytes live in the storage adapter under a generated key)
 * and the purge queue of stored bytes. Deleting a file row, also by cascade from a
 * record or vault, queues its bytes for removal in the same transaction.
 */
export class RecordFiles1763800000200 implements MigrationInterface {
  name = 'RecordFiles1763800000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE record_files (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        record_id uuid NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        file_name text NOT NULL,
        correlation_id text NOT NULL,
        file_type text NOT NULL,
        upload_detail text,
        caption text,
        upload_title text,
        file_extension text,
        media_type text NOT NULL,
        storage_key text NOT NULL UNIQUE,
        size bigint NOT NULL,
        sha256 text NOT NULL,
        uploader text NOT NULL,
        uploader_open_id text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        revision integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT record_files_name_uq UNIQUE (record_id, file_name)
      )`);
    await q.query(`
      CREATE TABLE file_purges (
        storage_key text PRIMARY KEY,
        purge_after timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX file_purges_due_idx ON file_purges (purge_after)`);
    await q.query(`
      CREATE FUNCTION record_files_queue_purge() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO file_purges (storage_key, purge_after) VALUES (OLD.storage_key, now())
        ON CONFLICT (storage_key) DO UPDATE SET purge_after = now();
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER record_files_queue_purge AFTER DELETE ON record_files
      FOR EACH ROW EXECUTE FUNCTION record_files_queue_purge()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE record_files`);
    await q.query(`DROP FUNCTION record_files_queue_purge()`);
    await q.query(`DROP TABLE file_purges`);
  }
}
