import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Blobs and file versions (docs/files.md, Versions). A blob is a stored object of one
 * vault, known by the SHA-256 of its bytes (unique per vault) and counted by the
 * versions that point at it; a file has versions 1..n, one of them current. Existing
 * files become version 1 of themselves, each pointing at the blob of its vault and bytes:
 * the first file's storage key is kept, no byte is rewritten; the keys of files whose
 * bytes another file of the vault already holds are queued for removal.
 *
 * Deleting rows is always safe: a deleted version (also by cascade from its file, record
 * or vault) releases its blob; a blob left without versions is deleted and its storage key
 * queued in file_purges, all in the deleting transaction. `record_files.storage_key`,
 * `size` and `sha256` stay as copies of the current version's blob (no longer unique: two
 * files may share a blob), and a record moved to another vault takes the blobs only its
 * files use with it.
 */
export class FileVersions1764000000000 implements MigrationInterface {
  name = 'FileVersions1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE blobs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        vault_id uuid NOT NULL,
        sha256 text NOT NULL,
        size bigint NOT NULL,
        storage_key text NOT NULL CONSTRAINT blobs_storage_key_uq UNIQUE,
        ref_count integer NOT NULL DEFAULT 0 CHECK (ref_count >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT blobs_vault_sha256_uq UNIQUE (vault_id, sha256)
      )`);
    await q.query(`
      CREATE TABLE file_versions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        file_id uuid NOT NULL REFERENCES record_files(id) ON DELETE CASCADE,
        blob_id uuid NOT NULL REFERENCES blobs(id),
        number integer NOT NULL,
        media_type text NOT NULL,
        current boolean NOT NULL DEFAULT false,
        pinned boolean NOT NULL DEFAULT false,
        restored_from uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        created_by text NOT NULL,
        created_by_name text NOT NULL,
        deleted_at timestamptz,
        deleted_by text,
        purge_at timestamptz,
        state text GENERATED ALWAYS AS (CASE WHEN deleted_at IS NULL THEN 'live' ELSE 'trashed' END) STORED,
        CONSTRAINT file_versions_number_uq UNIQUE (file_id, number),
        CONSTRAINT file_versions_current_live CHECK (NOT (current AND deleted_at IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX file_versions_current_uq ON file_versions (file_id) WHERE current`);
    await q.query(`CREATE INDEX file_versions_blob_idx ON file_versions (blob_id)`);
    await q.query(`CREATE INDEX file_versions_purge_due ON file_versions (purge_at) WHERE deleted_at IS NOT NULL`);
    await this.triggers(q);
    await this.convert(q);
  }

  /** Reference counting of blobs, the purge of unreferenced ones, blobs following a moved record. */
  private async triggers(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION file_versions_blob_ref() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          UPDATE blobs SET ref_count = ref_count + 1 WHERE id = NEW.blob_id;
        END IF;
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
          UPDATE blobs SET ref_count = ref_count - 1 WHERE id = OLD.blob_id;
          DELETE FROM blobs WHERE id = OLD.blob_id AND ref_count = 0;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER file_versions_blob_ref AFTER INSERT OR DELETE OR UPDATE OF blob_id ON file_versions
      FOR EACH ROW EXECUTE FUNCTION file_versions_blob_ref()`);
    await q.query(`
      CREATE FUNCTION blobs_queue_purge() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO file_purges (storage_key, purge_after) VALUES (OLD.storage_key, now())
        ON CONFLICT (storage_key) DO UPDATE SET purge_after = now();
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER blobs_queue_purge AFTER DELETE ON blobs
      FOR EACH ROW EXECUTE FUNCTION blobs_queue_purge()`);
    // a moved record: a blob only its files use moves too; one the new vault already holds is shared
    await q.query(`
      CREATE FUNCTION records_move_blobs() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE moved record; target uuid;
      BEGIN
        FOR moved IN SELECT DISTINCT b.id, b.sha256 FROM file_versions v
            JOIN record_files f ON f.id = v.file_id JOIN blobs b ON b.id = v.blob_id
            WHERE f.record_id = NEW.id AND b.vault_id = OLD.vault_id LOOP
          SELECT id INTO target FROM blobs WHERE vault_id = NEW.vault_id AND sha256 = moved.sha256 FOR UPDATE;
          IF target IS NOT NULL THEN
            UPDATE file_versions SET blob_id = target
              WHERE blob_id = moved.id AND file_id IN (SELECT id FROM record_files WHERE record_id = NEW.id);
            UPDATE record_files f SET storage_key = b.storage_key FROM blobs b
              WHERE f.record_id = NEW.id AND b.id = target AND f.sha256 = b.sha256;
          ELSIF NOT EXISTS (SELECT 1 FROM file_versions v JOIN record_files f ON f.id = v.file_id
              WHERE v.blob_id = moved.id AND f.record_id <> NEW.id) THEN
            UPDATE blobs SET vault_id = NEW.vault_id WHERE id = moved.id;
          END IF;
        END LOOP;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER records_move_blobs AFTER UPDATE OF vault_id ON records
      FOR EACH ROW WHEN (OLD.vault_id IS DISTINCT FROM NEW.vault_id) EXECUTE FUNCTION records_move_blobs()`);
  }

  /** Every existing file becomes version 1 of itself; the first key of each vault's bytes is their blob. */
  private async convert(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER record_files_queue_purge ON record_files`);
    await q.query(`DROP FUNCTION record_files_queue_purge()`);
    await q.query(`ALTER TABLE record_files DROP CONSTRAINT record_files_storage_key_key`);
    await q.query(`
      INSERT INTO blobs (vault_id, sha256, size, storage_key, created_at)
      SELECT DISTINCT ON (r.vault_id, f.sha256) r.vault_id, f.sha256, f.size, f.storage_key, f.created_at
      FROM record_files f JOIN records r ON r.id = f.record_id
      ORDER BY r.vault_id, f.sha256, f.created_at, f.id`);
    await q.query(`
      INSERT INTO file_purges (storage_key, purge_after)
      SELECT f.storage_key, now() FROM record_files f WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.storage_key = f.storage_key)
      ON CONFLICT (storage_key) DO UPDATE SET purge_after = now()`);
    await q.query(`
      UPDATE record_files f SET storage_key = b.storage_key
      FROM records r, blobs b WHERE r.id = f.record_id AND b.vault_id = r.vault_id AND b.sha256 = f.sha256`);
    await q.query(`
      INSERT INTO file_versions (file_id, blob_id, number, media_type, current, created_at, created_by, created_by_name)
      SELECT f.id, b.id, 1, f.media_type, true, f.created_at, f.uploader_open_id, f.uploader
      FROM record_files f JOIN blobs b ON b.storage_key = f.storage_key`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER records_move_blobs ON records`);
    await q.query(`DROP FUNCTION records_move_blobs()`);
    // files sharing bytes get no key of their own back: down keeps one file per key
    await q.query(`DELETE FROM record_files f USING record_files g
      WHERE f.storage_key = g.storage_key AND (f.created_at, f.id) > (g.created_at, g.id)`);
    await q.query(`DROP TABLE file_versions`);
    await q.query(`DROP FUNCTION file_versions_blob_ref()`);
    await q.query(`DROP TABLE blobs`);
    await q.query(`DROP FUNCTION blobs_queue_purge()`);
    await q.query(`ALTER TABLE record_files ADD CONSTRAINT record_files_storage_key_key UNIQUE (storage_key)`);
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
}
