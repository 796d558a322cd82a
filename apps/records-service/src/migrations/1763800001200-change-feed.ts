import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change feed of each vault (docs/change-feed.md): its events as CloudEvents in
 * stream order (`seq`), one row per event and vault (a record transfer is in both
 * vaults), and the highest pruned `seq` (cursors before it answer 410).
 */
export class ChangeFeed1763800001200 implements MigrationInterface {
  name = 'ChangeFeed1763800001200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE vault_feed (
        seq bigserial PRIMARY KEY,
        event_id uuid NOT NULL,
        vault_id uuid NOT NULL,
        record_id uuid,
        type text NOT NULL,
        envelope jsonb NOT NULL,
        occurred_at timestamptz NOT NULL,
        UNIQUE (event_id, vault_id)
      )`);
    await q.query(`CREATE INDEX vault_feed_vault_idx ON vault_feed (vault_id, seq)`);
    await q.query(`CREATE INDEX vault_feed_occurred_idx ON vault_feed (occurred_at)`);
    await q.query(`
      CREATE TABLE vault_feed_horizon (
        id boolean PRIMARY KEY DEFAULT true CHECK (id),
        pruned_seq bigint NOT NULL DEFAULT 0
      )`);
    await q.query(`INSERT INTO vault_feed_horizon DEFAULT VALUES`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE vault_feed_horizon`);
    await q.query(`DROP TABLE vault_feed`);
  }
}
