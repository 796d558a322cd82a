import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Encrypted blobs: `envelope` is the age header and payload nonce of the stored object
 * (the object holds the STREAM chunks), sealed to the key of `envelope_vault_id`. Both
 * are null for a blob stored before encryption (plaintext, encrypted by the background
 * job). A record moved to another vault takes its blobs along (records_move_blobs): then
 * `envelope_vault_id` differs from `vault_id` until the envelope is rewrapped.
 */
export class BlobEnvelopes1764300000001 implements MigrationInterface {
  name = 'BlobEnvelopes1764300000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE blobs ADD COLUMN envelope bytea, ADD COLUMN envelope_vault_id uuid`);
    await q.query(`
      ALTER TABLE blobs ADD CONSTRAINT blobs_envelope_ck
        CHECK ((envelope IS NULL) = (envelope_vault_id IS NULL))`);
    await q.query(`CREATE INDEX blobs_plaintext_idx ON blobs (id) WHERE envelope IS NULL`);
    await q.query(`CREATE INDEX blobs_foreign_envelope_idx ON blobs (id) WHERE envelope_vault_id <> vault_id`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE blobs DROP COLUMN envelope, DROP COLUMN envelope_vault_id`);
  }
}
