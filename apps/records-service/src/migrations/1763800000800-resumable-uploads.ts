import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Resumable (tus) uploads still open: who may continue each one, how far it got, the
 * SHA-256 state of the bytes so far and the storage adapter's own progress. An open
 * upload's declared length counts in its vault's storage use (a reservation) until it
 * commits, expires or is terminated; its bytes are queued in file_purges meanwhile.
 */
export class ResumableUploads1763800000800 implements MigrationInterface {
  name = 'ResumableUploads1763800000800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE resumable_uploads (
        id uuid PRIMARY KEY,
        record_id uuid NOT NULL REFERENCES records(id) ON DELETE CASCADE,
        tenant_id text NOT NULL,
        owner_open_id text NOT NULL,
        storage_key text NOT NULL UNIQUE,
        upload_length bigint NOT NULL,
        upload_offset bigint NOT NULL DEFAULT 0,
        metadata jsonb NOT NULL,
        media_type text NOT NULL,
        expected_sha256 text,
        hash_state bytea,
        store_state jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX resumable_uploads_record_idx ON resumable_uploads (record_id)`);
    await q.query(`CREATE INDEX resumable_uploads_owner_idx ON resumable_uploads (owner_open_id)`);
    await q.query(`CREATE INDEX resumable_uploads_expiry_idx ON resumable_uploads (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE resumable_uploads`);
  }
}
